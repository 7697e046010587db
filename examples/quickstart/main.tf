# Quickstart: health checks that really probe the target simulator's
# endpoints, applied against a local emulator. `make demo` does it all; by
# hand, from the repository root:
#   bin/lbhealth-emulator &            # the API on 127.0.0.1:8686
#   bin/lbhealth-emulator targets &    # sample targets on 127.0.0.1:9000 and up
#   make install                       # the provider into ~/.terraform.d/plugins
#   cd examples/quickstart && terraform init && terraform apply
# (After `make install` rebuilds the provider, the same version has a new
# checksum, which an earlier run's .terraform.lock.hcl refuses: delete that
# file first, even -upgrade does not replace it.)
terraform {
  required_providers {
    lbhealth = {
      source  = "lbhealth/lbhealth"
      version = "~> 0.1"
    }
  }
}

provider "lbhealth" {
  project = "demo-project"
}

# Probe GET / on each endpoint's own port every second; two failures in a
# row make an endpoint UNHEALTHY, two successes make it HEALTHY again.
resource "lbhealth_health_check" "web" {
  name                = "web"
  description         = "Is the web tier answering 200?"
  check_interval_sec  = 1
  timeout_sec         = 1
  healthy_threshold   = 2
  unhealthy_threshold = 2

  http_health_check {
    port_specification = "USE_SERVING_PORT"
    response           = "ok"
  }

  log_config {
    enable = true
  }
}

# The simulator's three HTTP targets.
resource "lbhealth_endpoint_group" "web" {
  name = "web"
  zone = "us-central1-a"

  dynamic "endpoint" {
    for_each = [9000, 9001, 9002]
    content {
      ip_address = "127.0.0.1"
      port       = endpoint.value
      instance   = "web-${endpoint.key + 1}"
    }
  }
}

# Let the cloud's health-check probers in, as a real configuration must:
# without this rule the emulator says (getHealth, the status page) that the
# probes would be blocked by the default network's firewall.
resource "lbhealth_firewall" "health_checks" {
  name          = "allow-health-checks"
  source_ranges = ["35.191.0.0/16", "130.211.0.0/22"]

  allow {
    protocol = "tcp"
    ports    = ["9000-9002"]
  }
}

resource "lbhealth_backend_service" "web" {
  name          = "web"
  health_checks = [lbhealth_health_check.web.self_link]

  backend {
    group = lbhealth_endpoint_group.web.self_link
  }
}

# A TCP check of the simulator's TCP target: send PING, expect +PONG.
resource "lbhealth_health_check" "cache" {
  name   = "cache"
  region = "us-central1"

  tcp_health_check {
    port     = 9200
    request  = "PING"
    response = "+PONG"
  }
}

# Live health, read at every plan and refresh.
data "lbhealth_backend_health" "web" {
  backend_service = lbhealth_backend_service.web.self_link
}

# After an apply, waits (a minute at most) for the first probes' verdicts;
# a check block warns, and the apply still succeeds, if they never come.
check "web_healthy" {
  data "lbhealth_backend_health" "web_ready" {
    backend_service = lbhealth_backend_service.web.self_link
    wait_for {
      timeout = "60s"
    }
  }

  assert {
    condition     = data.lbhealth_backend_health.web_ready.all_healthy
    error_message = "Not every endpoint of the web service is healthy (${data.lbhealth_backend_health.web_ready.healthy_count} of ${length(data.lbhealth_backend_health.web_ready.endpoints)})."
  }
}

output "web_endpoints" {
  value = {
    for e in data.lbhealth_backend_health.web.endpoints :
    "${e.ip_address}:${e.port}" => e.health_state
  }
}
