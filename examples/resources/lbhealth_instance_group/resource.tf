# Two instances at loopback addresses (whatever listens on 127.0.11.1:8080
# and 127.0.11.2:8080 answers their probes), behind a backend service whose
# health check probes each on the group's named port "http".
resource "lbhealth_instance" "web_a" {
  name       = "web-a"
  zone       = "us-central1-a"
  network_ip = "127.0.11.1"
}

resource "lbhealth_instance" "web_b" {
  name       = "web-b"
  zone       = "us-central1-a"
  network_ip = "127.0.11.2"
}

resource "lbhealth_instance_group" "web" {
  name      = "web"
  zone      = "us-central1-a"
  instances = [lbhealth_instance.web_a.id, lbhealth_instance.web_b.id]

  named_port {
    name = "http"
    port = 8080
  }
}

resource "lbhealth_health_check" "web" {
  name = "web-named-port"

  http_health_check {
    port_specification = "USE_NAMED_PORT"
    port_name          = "http"
    request_path       = "/healthz"
  }
}

resource "lbhealth_backend_service" "web" {
  name          = "web"
  health_checks = [lbhealth_health_check.web.id]

  backend {
    group = lbhealth_instance_group.web.id
  }
}
