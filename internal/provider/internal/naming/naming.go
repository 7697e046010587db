// Package naming turns the API's JSON field names into Terraform's, for
// the provider and for the generator of its protocol blocks.
package naming

// SnakeCase is the Terraform name of an API field: "grpcTlsHealthCheck" is
// grpc_tls_health_check.
func SnakeCase(field string) string {
	var out []byte
	for i := 0; i < len(field); i++ {
		c := field[i]
		if c >= 'A' && c <= 'Z' {
			out = append(out, '_', c-'A'+'a')
			continue
		}
		out = append(out, c)
	}
	return string(out)
}
