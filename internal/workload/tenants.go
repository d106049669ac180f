package workload

import "fmt"

// Citus's multi-tenant model distributes a table by its tenant, not by its
// key: the key is then local to its tenant (the primary key is (tenant_id,
// id)), every row of a tenant lies on one shard, and an ordered key
// inserts at one place per tenant instead of one for the whole table.
// Tenants gives the keyed table that shape (--distribute-by tenant).

// Tenants is how the keyed table's rows are spread over tenants: N of
// them, their sizes uniform or Zipfian (tenant k's share ∝ 1/k, as real
// tenants' are: a few large, many small), the tenant of each row made by
// the server (DEFAULT), the same for every key.
type Tenants struct {
	N    int
	Skew string
}

// The tenants' size distributions.
const (
	TenantsZipf    = "zipf"
	TenantsUniform = "uniform"
)

// TenantSkews are --tenant-skew's values.
var TenantSkews = []string{TenantsZipf, TenantsUniform}

// TenantColumn is the keyed table's tenant column.
const TenantColumn = "tenant_id"

// column is the tenant column's definition: floor((N+1)^U) for U uniform
// in [0,1) takes k in 1..N with probability log((k+1)/k)/log(N+1), a
// Zipf law of exponent 1; 1 + floor(N·U) takes each alike.
func (t *Tenants) column() string {
	expr := fmt.Sprintf("pg_catalog.floor(pg_catalog.power(%d::pg_catalog.float8, pg_catalog.random()))::pg_catalog.int8", t.N+1)
	if t.Skew == TenantsUniform {
		expr = fmt.Sprintf("1 + pg_catalog.floor(pg_catalog.random() * %d)::pg_catalog.int8", t.N)
	}
	return fmt.Sprintf("%s bigint NOT NULL DEFAULT %s", TenantColumn, expr)
}
