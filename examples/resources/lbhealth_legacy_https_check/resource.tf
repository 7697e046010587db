# A legacy HTTPS check on an EXTERNAL backend service: legacy checks work
# there and with target pools only. Certificates are not validated; probes
# pass on status 200 only. The target simulator serves HTTPS on
# 127.0.0.1:9100.
resource "lbhealth_legacy_https_check" "secure" {
  name         = "secure-legacy"
  port         = 9100
  host         = "secure.example.com"
  request_path = "/"
}

resource "lbhealth_endpoint_group" "secure" {
  name         = "secure-legacy"
  zone         = "us-central1-a"
  default_port = 9100

  endpoint {
    ip_address = "127.0.0.1"
  }
}

resource "lbhealth_backend_service" "secure" {
  name                  = "secure-legacy"
  protocol              = "HTTPS"
  load_balancing_scheme = "EXTERNAL"
  health_checks         = [lbhealth_legacy_https_check.secure.self_link]

  backend {
    group = lbhealth_endpoint_group.secure.self_link
  }
}
