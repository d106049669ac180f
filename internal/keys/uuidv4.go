package keys

import "time"

var uuidv4Strategy = &Strategy{
	Name:     "uuidv4",
	Made:     "gen_random_uuid() on the server; crypto random on the client",
	Ordering: "random",
	Storages: uuidStorages,
	Width:    16,
	Server:   uuidExpr("pg_catalog.gen_random_uuid()"),
	Client:   GeneratorFunc(func(*Spec, func() time.Time) Generator { return v4Gen{} }),
	Facts:    Facts{Sortable: SortableNo, Reveals: "nothing", RandomBits: 122},
}

type v4Gen struct{}

func (v4Gen) Stream() Stream { return &v4Stream{r: newRandBuf()} }

type v4Stream struct{ r *randBuf }

func (s *v4Stream) Next(dst []byte) {
	s.r.read(dst[:16])
	setVersion(dst, 4)
}
