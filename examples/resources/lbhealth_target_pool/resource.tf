# A target pool probed by one legacy HTTP check (the only kind a pool
# takes). The target simulator serves HTTP on 127.0.0.1:9000-9002.
resource "lbhealth_legacy_http_check" "pool" {
  name               = "pool"
  port               = 9002
  check_interval_sec = 5
  timeout_sec        = 5
}

resource "lbhealth_target_pool" "web" {
  name        = "web"
  description = "The web pool"

  # "ip:port" is probed on that port; a bare "ip" on the check's port (9002).
  instances     = ["127.0.0.1:9000", "127.0.0.1:9001", "127.0.0.1"]
  health_checks = [lbhealth_legacy_http_check.pool.self_link]
}
