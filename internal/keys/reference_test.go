package keys

import (
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gofrs/uuid/v5"
)

// vectors is testdata/reference/vectors.json: what the reference
// implementations of keybench's ids say (testdata/reference/make.sh made it).
type vectors struct {
	By          map[string]string `json:"by"`
	KSUIDEncode []struct {
		Unix    int64  `json:"unix"`
		Payload string `json:"payload"`
		Text    string `json:"text"`
	} `json:"ksuid_encode"`
	KSUIDDecode []struct {
		Text, Payload string
		Unix          int64
	} `json:"ksuid_decode"`
	XIDEncode []struct{ Bytes, Text string } `json:"xid_encode"`
	XIDDecode []struct {
		Text, Machine      string
		Unix, Pid, Counter int64
	} `json:"xid_decode"`
	TypeIDEncode []struct{ Prefix, UUID, Text string }         `json:"typeid_encode"`
	TypeIDDecode []struct{ Text, Prefix, Suffix, UUID string } `json:"typeid_decode"`
	ObjectID     []struct {
		Hex  string
		Unix int64
	} `json:"objectid_decode"`
	Sonyflake []struct {
		ID                      string
		Time, Sequence, Machine uint64
	} `json:"sonyflake_decode"`
	NameUUIDs []struct {
		Version               int
		Namespace, Name, UUID string
	} `json:"name_uuids"`
	Nanoid []struct{ Random, ID string } `json:"nanoid_encode"`
	Cuid2  []struct {
		MS, Count   int64
		Fingerprint string
		Random      []uint32
		ID          string
	} `json:"cuid2_encode"`
	Cuid2Check []struct {
		ID     string
		IsCuid bool `json:"is_cuid"`
	} `json:"cuid2_check"`
	NanoidCheck []struct {
		ID          string
		URLAlphabet bool `json:"url_alphabet"`
		Length      int
	} `json:"nanoid_check"`
}

func readVectors(t *testing.T) vectors {
	t.Helper()
	b, err := os.ReadFile("testdata/reference/vectors.json")
	if err != nil {
		t.Fatal(err)
	}
	var v vectors
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	return v
}

// TestAgainstTheReferences: keybench encodes the parts the reference
// implementations encoded as they did, and decodes the values keybench
// made as the references decoded them (ksuid's time, xid's time, machine,
// process and counter, a TypeID's prefix, suffix and uuid, an ObjectId's
// time, a Sonyflake's time, sequence and machine); its name-based uuids
// are gofrs/uuid's, its Nano IDs Nano ID's customRandom's of the same
// random bytes, and its Cuid2s the reference's of the same random
// numbers, clock, counter and fingerprint.
func TestAgainstTheReferences(t *testing.T) {
	v := readVectors(t)
	if len(v.By) < 9 {
		t.Fatalf("vectors from %d references", len(v.By))
	}
	ksuidSpec, _ := Parse("ksuid")
	for _, e := range v.KSUIDEncode {
		raw := binary.BigEndian.AppendUint32(nil, uint32(e.Unix-ksuidEpoch))
		p, _ := hex.DecodeString(e.Payload)
		if got := string(ksuidSpec.Encode(nil, append(raw, p...))); got != e.Text {
			t.Errorf("ksuid of %d and %s: %s, the reference %s", e.Unix, e.Payload, got, e.Text)
		}
	}
	for _, e := range v.KSUIDDecode {
		raw := parseBase62(t, e.Text, 20)
		at, err := ksuidSpec.TimeOf(raw)
		if err != nil || at.Unix() != e.Unix || hex.EncodeToString(raw[4:]) != e.Payload {
			t.Errorf("ksuid %s: keybench reads %v and %x, the reference %d and %s", e.Text, at, raw[4:], e.Unix, e.Payload)
		}
	}
	xidSpec, _ := Parse("xid")
	for _, e := range v.XIDEncode {
		b, _ := hex.DecodeString(e.Bytes)
		if got := string(xidSpec.Encode(nil, b)); got != e.Text {
			t.Errorf("xid of %s: %s, the reference %s", e.Bytes, got, e.Text)
		}
	}
	for _, e := range v.XIDDecode {
		raw := parseXID(t, e.Text)
		at, _ := xidSpec.TimeOf(raw)
		c := int64(raw[9])<<16 | int64(raw[10])<<8 | int64(raw[11])
		if at.Unix() != e.Unix || hex.EncodeToString(raw[4:7]) != e.Machine || int64(binary.BigEndian.Uint16(raw[7:9])) != e.Pid || c != e.Counter {
			t.Errorf("xid %s: keybench reads %v %x %d %d, the reference %+v", e.Text, at, raw[4:7], binary.BigEndian.Uint16(raw[7:9]), c, e)
		}
	}
	for _, e := range v.TypeIDEncode {
		s, err := Parse("typeid:as=text")
		if err != nil {
			t.Fatal(err)
		}
		s.Text["prefix"] = e.Prefix
		u := uuid.Must(uuid.FromString(e.UUID))
		if got := string(s.Encode(nil, u[:])); got != e.Text {
			t.Errorf("typeid %q of %s: %s, the reference %s", e.Prefix, e.UUID, got, e.Text)
		}
	}
	for _, e := range v.TypeIDDecode {
		i := strings.LastIndex(e.Text, "_")
		prefix, suffix := e.Text[:max(i, 0)], e.Text[i+1:]
		if prefix != e.Prefix || suffix != e.Suffix {
			t.Errorf("typeid %s: prefix %q suffix %q, the reference %q %q", e.Text, prefix, suffix, e.Prefix, e.Suffix)
		}
		u := uuid.Must(uuid.FromString(e.UUID))
		if got := strings.ToLower(ulidText(u[:])); got != suffix || u.Version() != 7 {
			t.Errorf("typeid %s: keybench writes the reference's uuid %s as %s (version %d)", e.Text, e.UUID, got, u.Version())
		}
	}
	objectID, _ := Parse("objectid")
	for _, e := range v.ObjectID {
		raw, _ := hex.DecodeString(e.Hex)
		if at, err := objectID.TimeOf(raw); err != nil || at.Unix() != e.Unix {
			t.Errorf("objectid %s: keybench reads %v (%v), the reference %d", e.Hex, at, err, e.Unix)
		}
	}
	sony, _ := Parse("sonyflake")
	for _, e := range v.Sonyflake {
		n, _ := strconv.ParseUint(e.ID, 10, 64)
		raw := binary.BigEndian.AppendUint64(nil, n)
		at, _ := sony.TimeOf(raw)
		if want := time.UnixMilli(sonyflakeEpoch + int64(e.Time)*10); !at.Equal(want) || n>>16&0xff != e.Sequence || n&0xffff != e.Machine || e.Machine != 1 {
			t.Errorf("sonyflake %s: keybench reads %v, the reference %+v", e.ID, at, e)
		}
	}
	for _, e := range v.NameUUIDs {
		if got := NameUUID(byte(e.Version), uuid.Must(uuid.FromString(e.Namespace)), e.Name).String(); got != e.UUID {
			t.Errorf("uuidv%d of %q: %s, the reference %s", e.Version, e.Name, got, e.UUID)
		}
	}
	for _, e := range v.Nanoid {
		random, _ := hex.DecodeString(e.Random)
		got := make([]byte, nanoidSize)
		NanoidOf(got, random)
		if string(got) != e.ID {
			t.Errorf("nanoid of %s: %s, the reference %s", e.Random, got, e.ID)
		}
	}
	for _, e := range v.Cuid2 {
		i := 0
		rand := func() float64 { u := e.Random[i]; i++; return float64(u) / (1 << 32) }
		if got := Cuid2(e.MS, e.Count, e.Fingerprint, rand); got != e.ID || i != len(e.Random) {
			t.Errorf("cuid2 at %d, count %d: %s (%d random numbers), the reference %s (%d)", e.MS, e.Count, got, i, e.ID, len(e.Random))
		}
	}
	for _, e := range v.Cuid2Check {
		if !e.IsCuid || len(e.ID) != cuid2Length {
			t.Errorf("the reference's isCuid(%q) = %v", e.ID, e.IsCuid)
		}
	}
	for _, e := range v.NanoidCheck {
		if !e.URLAlphabet || e.Length != nanoidSize {
			t.Errorf("keybench's nanoid %q: in the URL alphabet %v, length %d", e.ID, e.URLAlphabet, e.Length)
		}
	}
}

// parseBase62 reads n bytes back from base62 text.
func parseBase62(t *testing.T, s string, n int) []byte {
	t.Helper()
	out := make([]byte, n)
	for _, c := range []byte(s) {
		d := strings.IndexByte(base62, c)
		if d < 0 {
			t.Fatalf("%q is not base62", s)
		}
		carry := d
		for i := n - 1; i >= 0; i-- {
			v := int(out[i])*62 + carry
			out[i], carry = byte(v), v>>8
		}
	}
	return out
}

// parseXID reads xid's 12 bytes back from its 20 characters.
func parseXID(t *testing.T, s string) []byte {
	t.Helper()
	var bits uint64
	n := 0
	var out []byte
	for _, c := range []byte(s) {
		d := strings.IndexByte(base32Hex, c)
		if d < 0 {
			t.Fatalf("%q is not base32hex", s)
		}
		bits, n = bits<<5|uint64(d), n+5
		for n >= 8 && len(out) < 12 {
			n -= 8
			out = append(out, byte(bits>>n))
		}
	}
	return out
}

// TestNewKeysAtScale: 100,000 values of every new key are distinct and in
// their documented layout, as keybench gen writes them.
func TestNewKeysAtScale(t *testing.T) {
	layouts := map[string]*regexp.Regexp{
		"ksuid":                 regexp.MustCompile(`^[0-9A-Za-z]{27}$`),
		"ksuid:as=bytea":        regexp.MustCompile(`^\\x[0-9a-f]{40}$`),
		"typeid":                regexp.MustCompile(`^user_[0-7][0-9a-hjkmnp-tv-z]{25}$`),
		"typeid:as=uuid":        regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`),
		"nanoid":                regexp.MustCompile(`^[A-Za-z0-9_-]{21}$`),
		"cuid2":                 regexp.MustCompile(`^[a-z][0-9a-z]{23}$`),
		"objectid":              regexp.MustCompile(`^[0-9a-f]{24}$`),
		"objectid:as=bytea":     regexp.MustCompile(`^\\x[0-9a-f]{24}$`),
		"xid":                   regexp.MustCompile(`^[0-9a-v]{20}$`),
		"uuidv5":                regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`),
		"uuidv3":                regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-3[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`),
		"sonyflake":             regexp.MustCompile(`^[0-9]{17,19}$`),
		"uuidv7:method=counter": regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`),
		"uuidv7:method=random":  regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`),
		"bigint:gen=random":     regexp.MustCompile(`^[1-9][0-9]{0,18}$`),
	}
	for spec, layout := range layouts {
		s, err := Parse(spec)
		if err != nil {
			t.Fatal(err)
		}
		st := s.NewGenerator().Stream()
		raw := make([]byte, s.Strategy.Width)
		seen := make(map[string]bool, 100_000)
		var prev []byte
		ordered := s.Strategy.Name == "uuidv7" || spec == "sonyflake"
		for i := 0; i < 100_000; i++ {
			st.Next(raw)
			text := s.Format(raw)
			if !layout.MatchString(text) {
				t.Fatalf("%s: %q is not in its layout %s", spec, text, layout)
			}
			if seen[text] {
				t.Fatalf("%s: %q twice in 100,000", spec, text)
			}
			seen[text] = true
			if ordered && prev != nil && string(raw) <= string(prev) {
				t.Fatalf("%s: %x after %x", spec, raw, prev)
			}
			prev = append(prev[:0], raw...)
		}
		if s.HasTimeBound() || s.Strategy.Name == "ksuid" || s.Strategy.Name == "objectid" || s.Strategy.Name == "xid" || spec == "sonyflake" {
			// 100,000 Sonyflakes are 4 s of its 25,600 a second: keybench's
			// borrows the next 10 ms where Sonyflake's waits for it.
			ahead := time.Second
			if spec == "sonyflake" {
				ahead = 10 * time.Second
			}
			if at, err := s.TimeOf(raw); err != nil || time.Since(at) > time.Minute || time.Until(at) > ahead {
				t.Errorf("%s: the last value reads as made at %v (%v)", spec, at, err)
			}
		}
	}
}
