package advise

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
)

// Origin is the framework a table's key looks made by — a likely origin,
// read from the key's column type, its default and its values (never
// certain: an application can make any of these by hand) — with the
// change that makes an ordered key in that framework's words and the page
// that says so.
type Origin struct {
	Framework string `json:"framework"`
	Because   string `json:"because"`
	Fix       string `json:"fix,omitempty"`
	Source    string `json:"source"`
}

// originOf is the likely origin of the table's key, nil where no
// framework's default matches it. pooledBy50 says a sequence named
// <table>_seq in the table's schema steps by 50 (Hibernate's
// allocationSize) while nothing in the table's defaults draws from it.
func originOf(t *Table) *Origin {
	k := t.Key
	if k == nil || len(k.Columns) != 1 {
		return nil
	}
	made := strings.ToLower(k.Default)
	switch {
	case t.pooledBy50 && k.Made == "application" && (k.Type == "bigint" || k.Type == "integer"):
		return &Origin{Framework: "Hibernate / JPA (GenerationType.SEQUENCE, allocationSize 50: the pooled optimizer)",
			Because: fmt.Sprintf("no default, and a sequence %s_seq stepping by 50 beside it", t.Name),
			Fix:     "an ordered key already: each session's block of 50 interleaves with the others'; allocationSize sets the block",
			Source:  "https://docs.jboss.org/hibernate/orm/6.6/userguide/html_single/Hibernate_User_Guide.html#identifiers-generators-sequence"}
	case k.UUIDText && k.UUIDVersion == 4:
		return &Origin{Framework: "Prisma (String @id @default(uuid()), a text column) or SQLAlchemy (String(36) with uuid4)",
			Because: "v4 uuids in a " + k.Type + " column",
			Fix:     "Prisma 5.18+: @default(uuid(7)) @db.Uuid (a v7 in a uuid column); SQLAlchemy 2.0: the Uuid type with a v7 default",
			Source:  "https://www.prisma.io/docs/orm/reference/prisma-schema-reference#uuid"}
	case k.Type != "uuid":
		return nil
	case k.UUIDVersion == 4 && (k.Order == Ordered || k.Order == PartlyOrdered) && k.Made == "application":
		return &Origin{Framework: "Laravel 9–11 (HasUuids: Str::orderedUuid(), timestamp-first v4s)",
			Because: "v4 uuids made by the application, yet in insertion order: a time leads them",
			Fix:     "HasVersion7Uuids (Laravel 11.x), or HasUuids in Laravel 12: standard v7s, ordered alike",
			Source:  "https://laravel.com/docs/12.x/upgrade#models-and-uuidv7"}
	case strings.Contains(made, "uuid_generate_v4()"):
		return &Origin{Framework: "TypeORM (@PrimaryGeneratedColumn('uuid'))",
			Because: "DEFAULT uuid_generate_v4()",
			Fix:     "a v7 made in the application (@PrimaryColumn('uuid') with a uuidv7 default), or DEFAULT uuidv7() on PostgreSQL 18",
			Source:  "https://typeorm.io/docs/entity/entities/#primary-columns"}
	case strings.Contains(made, "gen_random_uuid()"):
		return &Origin{Framework: "Supabase / Drizzle (uuid().defaultRandom()) or TypeORM",
			Because: "DEFAULT gen_random_uuid()",
			Fix:     "Drizzle: .$defaultFn(() => uuidv7()); on PostgreSQL 18, DEFAULT uuidv7()",
			Source:  "https://orm.drizzle.team/docs/column-types/pg#uuid"}
	case k.UUIDVersion == 4 && k.Made == "application":
		return &Origin{Framework: "Django (UUIDField(default=uuid.uuid4)), Hibernate (@UuidGenerator) or EF Core before 9",
			Because: "v4 uuids made by the application in a uuid column",
			Fix:     "Django: default=uuid.uuid7 (Python 3.14) or a v7 library; Hibernate 6.6+: @UuidGenerator(style = VERSION_7); EF Core 9 + Npgsql: v7 by default",
			Source:  "https://docs.djangoproject.com/en/5.1/ref/models/fields/#uuidfield"}
	}
	return nil
}

// readPooled says whether a sequence named <table>_seq in the table's
// schema steps by 50 (pooledBy50), as Hibernate makes one per entity.
func (r *reader) readPooled(ctx context.Context, tx pgx.Tx, t *Table) error {
	var inc int64
	err := tx.QueryRow(ctx, `SELECT s.seqincrement FROM pg_catalog.pg_sequence s JOIN pg_catalog.pg_class c ON c.oid = s.seqrelid
		JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND c.relname = $2`, t.Schema, t.Name+"_seq").Scan(&inc)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil
	}
	t.pooledBy50 = inc == 50
	return err
}
