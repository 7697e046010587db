# A legacy HTTP check, the check of a target pool (a network load balancer).
# Probes pass on status 200 only: a redirect (301, 302) fails. The target
# simulator serves HTTP on 127.0.0.1:9000-9002.
resource "lbhealth_legacy_http_check" "web" {
  name                = "web-legacy"
  description         = "Health of the web pool"
  port                = 9000
  request_path        = "/"
  check_interval_sec  = 5
  timeout_sec         = 2
  unhealthy_threshold = 3
}

resource "lbhealth_target_pool" "web" {
  name = "web-legacy"

  # Each instance is probed on its own port.
  instances     = ["127.0.0.1:9000", "127.0.0.1:9001"]
  health_checks = [lbhealth_legacy_http_check.web.self_link]
}
