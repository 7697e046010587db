package rules

import (
	"net/url"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
)

// SQL drivers a SQL check speaks, and the query each runs when the check
// names none.
const (
	SQLPostgres = "postgres"
	SQLOracle   = "oracle"
	// DefaultPostgresQuery and DefaultOracleQuery must return a row.
	DefaultPostgresQuery = "SELECT 1"
	DefaultOracleQuery   = "SELECT 1 FROM DUAL"
)

// sqlDriver checks driver: required, one of the drivers.
func sqlDriver(field, value string) *Violation {
	if value == "" {
		v := violation(field, "%s is required: %s or %s.", f(field), SQLPostgres, SQLOracle)
		return &v
	}
	return oneOf(field, value, SQLPostgres, SQLOracle)
}

// sqlDSNText checks dsn as a secret: required, printable ASCII.
func sqlDSNText(field, value string) *Violation {
	if value == "" {
		v := violation(field, "%s is required: the connection settings (user, password, database) the check logs in with.", f(field))
		return &v
	}
	return secretText(field, value)
}

// sqlBlock checks the DSN in the form its driver reads. The messages never
// show it: it holds a password.
func sqlBlock(b api.ProtocolBlock) Violations {
	driver, dsn := b.Text["driver"], b.Text["dsn"]
	if driver == nil || dsn == nil || *dsn == "" {
		return nil
	}
	field := b.Field + ".dsn"
	switch *driver {
	case SQLPostgres:
		if _, err := pgconn.ParseConfig(*dsn); err != nil {
			return Violations{violation(field, "%s is not a PostgreSQL connection string: write a URL such as postgres://user:password@/database?sslmode=disable or key=value pairs such as user=monitor dbname=app (the value is a secret and is not shown).", f(field))}
		}
	case SQLOracle:
		u, err := url.Parse(*dsn)
		if err != nil || u.Scheme != "oracle" || strings.Trim(u.Path, "/") == "" || u.User == nil {
			return Violations{violation(field, "%s is not an Oracle URL: write oracle://user:password@/service (the address is the endpoint's; the value is a secret and is not shown).", f(field))}
		}
	}
	return nil
}
