# An HTTP check of /healthz on port 8080, every 10 seconds.
resource "lbhealth_health_check" "http" {
  name                = "web-http"
  description         = "HTTP check of the web tier"
  check_interval_sec  = 10
  timeout_sec         = 5
  healthy_threshold   = 2
  unhealthy_threshold = 3

  http_health_check {
    port         = 8080
    request_path = "/healthz"
    response     = "ok"
  }

  log_config {
    enable = true
  }
}

# A regional TCP check that sends a line and expects an answer. An empty
# protocol block (tcp_health_check {}) would mean all defaults: port 80.
resource "lbhealth_health_check" "tcp" {
  name   = "cache-tcp"
  region = "us-central1"

  tcp_health_check {
    port     = 6379
    request  = "PING"
    response = "+PONG"
  }
}

# A gRPC check of one service, probing each endpoint on its own port.
resource "lbhealth_health_check" "grpc" {
  name = "api-grpc"

  grpc_health_check {
    port_specification = "USE_SERVING_PORT"
    grpc_service_name  = "api.v1.Orders"
  }

  # Backend services reference health checks: replace before destroying so
  # that a replacement never leaves a service without a check.
  lifecycle {
    create_before_destroy = true
  }
}

# A DNS check (an lbhealth extension): asks the endpoint for web.example.com's
# address and expects one. An lbhealth check type keeps its type: another
# protocol block replaces the check.
resource "lbhealth_health_check" "dns" {
  name = "resolver-dns"

  dns_health_check {
    query_name      = "web.example.com"
    query_type      = "A"
    expected_answer = "192.0.2.10"
  }
}

# An FTPS check (an lbhealth extension): logs in over implicit TLS. The
# password is sensitive: the emulator probes with it but never returns it,
# so Terraform keeps the configured value.
variable "ftp_password" {
  type      = string
  sensitive = true
  default   = "example-only"
}

resource "lbhealth_health_check" "ftps" {
  name = "files-ftps"

  ftps_health_check {
    port     = 990
    tls_mode = "IMPLICIT"
    username = "monitor"
    password = var.ftp_password
  }
}

# More lbhealth extensions, one block each. An ICMP check pings the
# endpoint's address; it has no port.
resource "lbhealth_health_check" "ping" {
  name = "hosts-icmp"

  icmp_health_check {}
}

# An LDAP check binds and searches; the bind password is sensitive.
variable "directory_password" {
  type      = string
  sensitive = true
  default   = "example-only"
}

resource "lbhealth_health_check" "directory" {
  name = "directory-ldap"

  ldap_health_check {
    bind_dn       = "cn=monitor,dc=example,dc=com"
    bind_password = var.directory_password
    base_dn       = "ou=people,dc=example,dc=com"
    filter        = "(objectClass=person)"
  }
}

# An expression check sends nothing: it is healthy on the MASTER node only.
resource "lbhealth_health_check" "master_only" {
  name = "master-only"

  expression_health_check {
    expression = "node.role = \"MASTER\""
  }
}

# A scenario: healthy while both the DNS check and the ping pass.
resource "lbhealth_health_check" "resolver" {
  name = "resolver-up"

  scenario_health_check {
    operator      = "AND"
    health_checks = [lbhealth_health_check.dns.id, lbhealth_health_check.ping.id]
  }
}
