package keys

import (
	"fmt"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/gofrs/uuid/v5"
)

// Name-based uuids (RFC 9562 versions 3 and 5): the hash of a namespace
// and a name, so the same name always makes the same key, and keys fall
// in the hash's order: random. keybench names its rows
// "keybench/<a random nonce of the generator>/<n>" under the URL
// namespace, as an application names its rows by a natural key.
func nameBased(version byte, hash string) *Strategy {
	return &Strategy{
		Name:     fmt.Sprintf("uuidv%d", version),
		Made:     fmt.Sprintf("RFC 9562 version %d: the %s of a namespace and a name (keybench's rows named keybench/<nonce>/<n>)", version, hash),
		Ordering: "random (a hash)",
		Storages: uuidStorages,
		Width:    16,
		Client: GeneratorFunc(func(*Spec, func() time.Time) Generator {
			var nonce [8]byte
			newRandBuf().read(nonce[:])
			return &nameUUIDGen{version: version, prefix: fmt.Sprintf("keybench/%x/", nonce)}
		}),
		Facts: Facts{Sortable: SortableNo, Reveals: "nothing, but one name makes one key: a guessed name gives its key", RandomBits: 122},
	}
}

type nameUUIDGen struct {
	version byte
	prefix  string
	n       atomic.Uint64
}

func (g *nameUUIDGen) Stream() Stream { return g }

func (g *nameUUIDGen) Next(dst []byte) {
	u := NameUUID(g.version, uuid.NamespaceURL, g.prefix+strconv.FormatUint(g.n.Add(1), 10))
	copy(dst, u[:])
}

// NameUUID is the version 3 or 5 uuid of name in namespace ns.
func NameUUID(version byte, ns uuid.UUID, name string) uuid.UUID {
	if version == 3 {
		return uuid.NewV3(ns, name)
	}
	return uuid.NewV5(ns, name)
}
