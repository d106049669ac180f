package scenario

import (
	"time"

	"github.com/keybench/keybench/internal/results"
)

// frameworkOrigins are the frameworks' default ids, each as the framework
// declares the column and makes the value, traced to its documentation,
// and the key of the catalog that makes the same column and values. Keys
// several frameworks share run once; the answer names every framework of
// each.
var frameworkOrigins = []results.Origin{
	{Framework: "Rails 5.1+", Declared: "create_table's id: bigint, a bigserial's sequence", Key: "bigint",
		Source: "https://guides.rubyonrails.org/active_record_migrations.html#creating-a-table"},
	{Framework: "Django 4.1+", Declared: "BigAutoField (DEFAULT_AUTO_FIELD), an identity column on PostgreSQL", Key: "bigint",
		Source: "https://docs.djangoproject.com/en/5.1/ref/settings/#default-auto-field"},
	{Framework: "Hibernate 6 / JPA", Declared: "@GeneratedValue(strategy = SEQUENCE): a sequence INCREMENT BY 50 (allocationSize), each session drawing 50 ids at a time (the pooled optimizer)", Key: "bigint:block=50",
		Differs: "keybench draws each block from a counter of its own, not a nextval: one round trip in 50 rows not sent",
		Source:  "https://docs.jboss.org/hibernate/orm/6.6/userguide/html_single/Hibernate_User_Guide.html#identifiers-generators-sequence"},
	{Framework: "Django", Declared: "UUIDField(primary_key=True, default=uuid.uuid4): a v4 made in Python, a uuid column", Key: "uuidv4:gen=client",
		Source: "https://docs.djangoproject.com/en/5.1/ref/models/fields/#uuidfield"},
	{Framework: "Hibernate 6", Declared: "@UuidGenerator (style RANDOM, the default) or GenerationType.UUID: a v4 made in Java, a uuid column", Key: "uuidv4:gen=client",
		Source: "https://docs.jboss.org/hibernate/orm/6.6/userguide/html_single/Hibernate_User_Guide.html#identifiers-generators-uuid"},
	{Framework: "Prisma", Declared: "String @id @default(uuid()): a v4 made by Prisma's engine, a text column (without @db.Uuid)", Key: "uuidv4:as=text:gen=client",
		Source: "https://www.prisma.io/docs/orm/reference/prisma-schema-reference#uuid"},
	{Framework: "SQLAlchemy", Declared: "Column(String(36), primary_key=True, default=lambda: str(uuid.uuid4())): a v4 as varchar(36)", Key: "uuidv4:as=text:gen=client",
		Differs: "varchar(36) measured as text: the same bytes stored, a length check not made",
		Source:  "https://docs.sqlalchemy.org/en/20/core/type_basics.html#sqlalchemy.types.String"},
	{Framework: "TypeORM", Declared: "@PrimaryGeneratedColumn('uuid'): a uuid column DEFAULT uuid_generate_v4() (or gen_random_uuid())", Key: "uuidv4:gen=server",
		Source: "https://typeorm.io/docs/entity/entities/#primary-columns"},
	{Framework: "Supabase / Drizzle", Declared: "uuid('id').defaultRandom().primaryKey(): DEFAULT gen_random_uuid()", Key: "uuidv4:gen=server",
		Source: "https://orm.drizzle.team/docs/column-types/pg#uuid"},
	{Framework: "Laravel 9–11", Declared: "HasUuids: Str::orderedUuid(), a timestamp-first v4 (100 µs ticks), a uuid column", Key: "uuidv7:gen=client",
		Differs: "measured as uuidv7: both lead with a 48-bit time, Laravel's in 100 µs ticks, v7's in ms",
		Source:  "https://laravel.com/docs/11.x/eloquent#uuid-and-ulid-keys"},
	{Framework: "Laravel 12", Declared: "HasUuids (HasVersion7Uuids in 11.x): a v7, a uuid column", Key: "uuidv7:gen=client",
		Source: "https://laravel.com/docs/12.x/upgrade#models-and-uuidv7"},
	{Framework: "EF Core 9 + Npgsql", Declared: "a Guid key: a v7 made client-side (NpgsqlSequentialGuidValueGenerator), a uuid column", Key: "uuidv7:gen=client",
		Source: "https://www.npgsql.org/efcore/release-notes/9.0.html"},
	{Framework: "Prisma 5.18+", Declared: "String @id @default(uuid(7)): a v7, a text column (without @db.Uuid)", Key: "uuidv7:as=text:gen=client",
		Source: "https://github.com/prisma/prisma/releases/tag/5.18.0"},
}

// originKeys are the origins' keys, each once, in the table's order.
func originKeys(os []results.Origin) []string {
	var out []string
	seen := map[string]bool{}
	for _, o := range os {
		if !seen[o.Key] {
			seen[o.Key] = true
			out = append(out, o.Key)
		}
	}
	return out
}

// frameworksPreset is the ids the frameworks make by default (issue 78):
// each framework's default key as it creates the column and makes the
// value, on the war's insert and read of a table past the cache, every
// key against Rails' and Django's bigint, its answer said in frameworks.
func frameworksPreset() *Scenario {
	ks := originKeys(frameworkOrigins)
	return &Scenario{
		Name:    "frameworks",
		Order:   11,
		Kind:    Preset,
		Against: "bigint",
		Origins: frameworkOrigins,
		Ask:     "What does your framework's default id cost against Rails' and Django's bigint?",
		Question: "Each popular framework's default id as the framework makes it (Rails, Django, Hibernate, Prisma, SQLAlchemy, TypeORM, " +
			"Supabase/Drizzle, Laravel, EF Core): its work, rate and index against a bigint from a sequence.",
		Description: "the frameworks' default ids (docs/keys.md traces each): 10 clients each insert a row and read one by a random data value, " +
			"on a 150k-row table over a 4 MB cache; the answer names the frameworks beside the keys",
		Defaults: Params{
			Workload: "insert-read", Keys: ks,
			Clients: []int{10}, Rows: []int64{150_000}, Warmup: 2 * time.Second, Txns: 1500, Payload: 32, Repeat: 1, Rounds: 8, AllRounds: true,
			FillIndexed: true,
		},
		Quick: func(p *Params) {
			p.Rows, p.Warmup, p.Txns = []int64{20_000}, time.Second, 300
		},
		ColdCacheMB:   4,
		CacheRelative: true,
		Settings:      embeddedDefaults,
	}
}
