# Two instances the emulator serves: a simulated workload at each address
# answers the group's named port, behind a backend service.
resource "lbhealth_instance" "web_a" {
  name       = "web-a"
  zone       = "us-central1-a"
  network_ip = "127.0.12.1"
}

resource "lbhealth_instance" "web_b" {
  name       = "web-b"
  zone       = "us-central1-a"
  network_ip = "127.0.12.2"
}

resource "lbhealth_instance_group" "web" {
  name      = "web-workloads"
  zone      = "us-central1-a"
  instances = [lbhealth_instance.web_a.id, lbhealth_instance.web_b.id]

  named_port {
    name = "http"
    port = 8080
  }
}

resource "lbhealth_health_check" "web" {
  name                = "web-workloads"
  check_interval_sec  = 1
  timeout_sec         = 1
  healthy_threshold   = 1
  unhealthy_threshold = 1

  http_health_check {
    port_specification = "USE_NAMED_PORT"
    port_name          = "http"
  }
}

resource "lbhealth_backend_service" "web" {
  name          = "web-workloads"
  health_checks = [lbhealth_health_check.web.id]

  backend {
    group = lbhealth_instance_group.web.id
  }
}

# Break web-b: its workload answers 500 to every request while this
# resource exists; destroying it heals the workload.
resource "lbhealth_workload" "web_b" {
  instance = lbhealth_instance.web_b.id
  mode     = "status-500"
}

# Wait until the probes have seen the break.
data "lbhealth_backend_health" "web" {
  backend_service = lbhealth_backend_service.web.id
  depends_on      = [lbhealth_workload.web_b]

  wait_for {
    min_unhealthy = 1
    timeout       = "1m"
  }
}
