// Command reference runs the reference implementations of the ids keybench
// makes on its own — segmentio/ksuid, rs/xid, jetify's typeid, the MongoDB
// driver's ObjectID, sony/sonyflake, gofrs/uuid — and writes what they say:
// values they encode from given parts (keybench must encode the same), and
// their decoding of values keybench made (keybench must decode the same).
// It reads keybench's values as JSON on stdin and writes JSON on stdout.
// It is a module of its own, run by make.sh outside CI: keybench's tests
// read only its output, testdata/reference/vectors.json.
package main

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/gofrs/uuid/v5"
	"github.com/rs/xid"
	"github.com/segmentio/ksuid"
	"github.com/sony/sonyflake"
	"go.jetify.com/typeid"
	"go.mongodb.org/mongo-driver/bson/primitive"
)

type made map[string][]string

func main() {
	var in made
	if err := json.NewDecoder(os.Stdin).Decode(&in); err != nil {
		fail(err)
	}
	out := map[string]any{"by": map[string]string{
		"ksuid": "github.com/segmentio/ksuid v1.0.4", "xid": "github.com/rs/xid v1.6.0", "typeid": "go.jetify.com/typeid v1.3.0",
		"objectid": "go.mongodb.org/mongo-driver v1.17.10 (bson/primitive)", "sonyflake": "github.com/sony/sonyflake v1.2.0",
		"uuidv5": "github.com/gofrs/uuid/v5 v5.5.1", "uuidv3": "github.com/gofrs/uuid/v5 v5.5.1",
	}}
	// Encodings of given parts.
	payloads := [][]byte{make([]byte, 16), {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}}
	payloads = append(payloads, seq(16, 7), seq(16, 91))
	var ksuidEnc []map[string]any
	for i, at := range []int64{1_400_000_000, 1_700_000_000, 1_795_000_000, 2_000_000_000} {
		k, err := ksuid.FromParts(time.Unix(at, 0), payloads[i%len(payloads)])
		if err != nil {
			fail(err)
		}
		ksuidEnc = append(ksuidEnc, map[string]any{"unix": at, "payload": hex.EncodeToString(payloads[i%len(payloads)]), "text": k.String()})
	}
	var xidEnc []map[string]any
	for _, b := range [][]byte{seq(12, 1), seq(12, 200), make([]byte, 12), {0x4d, 0x88, 0xe1, 0x5b, 0x60, 0xf4, 0x86, 0xe4, 0x28, 0x41, 0x2d, 0xc9}} {
		id, err := xid.FromBytes(b)
		if err != nil {
			fail(err)
		}
		xidEnc = append(xidEnc, map[string]any{"bytes": hex.EncodeToString(b), "text": id.String()})
	}
	var typeidEnc []map[string]any
	for _, u := range []string{"00000000-0000-0000-0000-000000000000", "01890a5d-ac96-774b-bcce-b302099a8057", "ffffffff-ffff-ffff-ffff-ffffffffffff", "0192e4b5-7c9a-7a31-8f2e-6b1d0c3a5e77"} {
		for _, p := range []string{"user", "order_line", ""} {
			id, err := typeid.FromUUIDWithPrefix(p, u)
			if err != nil {
				fail(err)
			}
			typeidEnc = append(typeidEnc, map[string]any{"prefix": p, "uuid": u, "text": id.String()})
		}
	}
	var names []map[string]any
	for _, n := range []string{"", "1", "keybench/00112233/42", "https://example.com/users/alice", "日本"} {
		for _, v := range []int{3, 5} {
			u := uuid.NewV5(uuid.NamespaceURL, n)
			if v == 3 {
				u = uuid.NewV3(uuid.NamespaceURL, n)
			}
			names = append(names, map[string]any{"version": v, "namespace": uuid.NamespaceURL.String(), "name": n, "uuid": u.String()})
		}
	}
	out["ksuid_encode"], out["xid_encode"], out["typeid_encode"], out["name_uuids"] = ksuidEnc, xidEnc, typeidEnc, names

	// Decodings of keybench's values.
	var dec []map[string]any
	for _, s := range in["ksuid"] {
		k, err := ksuid.Parse(s)
		if err != nil {
			fail(fmt.Errorf("ksuid %q: %w", s, err))
		}
		dec = append(dec, map[string]any{"text": s, "unix": k.Time().Unix(), "payload": hex.EncodeToString(k.Payload())})
	}
	out["ksuid_decode"] = dec
	dec = nil
	for _, s := range in["xid"] {
		id, err := xid.FromString(s)
		if err != nil {
			fail(fmt.Errorf("xid %q: %w", s, err))
		}
		dec = append(dec, map[string]any{"text": s, "unix": id.Time().Unix(), "machine": hex.EncodeToString(id.Machine()), "pid": id.Pid(), "counter": id.Counter()})
	}
	out["xid_decode"] = dec
	dec = nil
	for _, s := range in["typeid"] {
		id, err := typeid.FromString(s)
		if err != nil {
			fail(fmt.Errorf("typeid %q: %w", s, err))
		}
		dec = append(dec, map[string]any{"text": s, "prefix": id.Prefix(), "suffix": id.Suffix(), "uuid": id.UUID()})
	}
	out["typeid_decode"] = dec
	dec = nil
	for _, s := range in["objectid"] {
		id, err := primitive.ObjectIDFromHex(s)
		if err != nil {
			fail(fmt.Errorf("objectid %q: %w", s, err))
		}
		dec = append(dec, map[string]any{"hex": s, "unix": id.Timestamp().Unix()})
	}
	out["objectid_decode"] = dec
	dec = nil
	for _, s := range in["sonyflake"] {
		n, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			fail(err)
		}
		p := sonyflake.Decompose(n)
		dec = append(dec, map[string]any{"id": s, "time": p["time"], "sequence": p["sequence"], "machine": p["machine-id"]})
	}
	out["sonyflake_decode"] = dec
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", " ")
	if err := enc.Encode(out); err != nil {
		fail(err)
	}
}

// seq is n bytes counting from start.
func seq(n int, start byte) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = start + byte(i)*37
	}
	return b
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "reference:", err)
	os.Exit(1)
}
