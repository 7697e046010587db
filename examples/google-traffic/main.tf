# Traffic that follows health: hashicorp/google load balancers, unchanged
# but for the provider block, whose forwarding rules lbhealth-emulator
# really listens on (--data-plane, on by default). docs/guides/traffic.md walks
# through it: curl the rules in a loop, break a backend, watch the traffic
# leave it once its check finds it UNHEALTHY, and come back.
#
#   bin/lbhealth-emulator --in-memory &
#   bin/lbhealth-emulator targets &                                          # 127.0.0.1:9000-9002
#   bin/lbhealth-emulator targets --host 127.0.0.2 --control 127.0.0.1:8688 &  # 127.0.0.2:9000
#   bin/lbhealth-emulator targets --host 127.0.0.3 --control 127.0.0.1:8689 &  # 127.0.0.3:9000
#   cd examples/google-traffic && terraform init && terraform apply
terraform {
  required_providers {
    google = {
      source = "hashicorp/google"
    }
  }
}

variable "emulator" {
  description = "Where lbhealth-emulator listens."
  type        = string
  default     = "http://127.0.0.1:8686"
}

provider "google" {
  project      = "demo-project"
  region       = "us-central1"
  zone         = "us-central1-a"
  access_token = "x" # any value: the emulator needs no credentials
  # Not googleapis.com, so that the provider does not look up the token's
  # user at start (it would wait minutes for Google to answer).
  universe_domain         = "emulator.invalid"
  compute_custom_endpoint = "${var.emulator}/compute/v1/"
}

data "google_compute_image" "debian" {
  family  = "debian-12"
  project = "debian-cloud"
}

# ---------------------------------------------------------------------------
# 1. A global external Application Load Balancer on 127.0.0.1:8080 over two
#    NEGs of the first simulator's HTTP targets, with /api/ routed to a
#    second service that sees the path without its prefix.

resource "google_compute_health_check" "web" {
  name                = "web-hc"
  check_interval_sec  = 1
  timeout_sec         = 1
  healthy_threshold   = 2
  unhealthy_threshold = 2

  http_health_check {
    port_specification = "USE_SERVING_PORT"
    request_path       = "/"
  }
}

locals {
  # The NEGs of the Application Load Balancer, by the port of their target.
  negs = { a = 9000, b = 9001, api = 9002 }
  # The VMs of the passthrough load balancers, by their address.
  vms = { a = "127.0.0.2", b = "127.0.0.3" }
}

resource "google_compute_network_endpoint_group" "web" {
  for_each              = local.negs
  name                  = "web-${each.key}"
  network               = "default"
  network_endpoint_type = "NON_GCP_PRIVATE_IP_PORT"
  default_port          = each.value
}

resource "google_compute_network_endpoint" "web" {
  for_each               = local.negs
  network_endpoint_group = google_compute_network_endpoint_group.web[each.key].name
  ip_address             = "127.0.0.1"
  port                   = each.value
}

resource "google_compute_backend_service" "web" {
  name                  = "web"
  protocol              = "HTTP"
  load_balancing_scheme = "EXTERNAL_MANAGED"
  health_checks         = [google_compute_health_check.web.id]

  dynamic "backend" {
    for_each = ["a", "b"]
    content {
      group                 = google_compute_network_endpoint_group.web[backend.value].id
      balancing_mode        = "RATE"
      max_rate_per_endpoint = 100
    }
  }
}

resource "google_compute_backend_service" "api" {
  name                  = "api"
  protocol              = "HTTP"
  load_balancing_scheme = "EXTERNAL_MANAGED"
  health_checks         = [google_compute_health_check.web.id]

  backend {
    group                 = google_compute_network_endpoint_group.web["api"].id
    balancing_mode        = "RATE"
    max_rate_per_endpoint = 100
  }
}

resource "google_compute_url_map" "web" {
  name            = "web-map"
  default_service = google_compute_backend_service.web.id

  host_rule {
    hosts        = ["*"]
    path_matcher = "all"
  }

  path_matcher {
    name            = "all"
    default_service = google_compute_backend_service.web.id

    path_rule {
      paths   = ["/api/*"]
      service = google_compute_backend_service.api.id
      route_action {
        url_rewrite {
          path_prefix_rewrite = "/"
        }
      }
    }

    # A request that meets a 5xx is tried once more, on the other backend.
    path_rule {
      paths   = ["/resilient/*"]
      service = google_compute_backend_service.web.id
      route_action {
        retry_policy {
          retry_conditions = ["5xx"]
          num_retries      = 1
        }
      }
    }
  }
}

resource "google_compute_target_http_proxy" "web" {
  name    = "web-proxy"
  url_map = google_compute_url_map.web.id
}

resource "google_compute_global_forwarding_rule" "web" {
  name                  = "web-rule"
  load_balancing_scheme = "EXTERNAL_MANAGED"
  ip_address            = "127.0.0.1"
  port_range            = "8080"
  target                = google_compute_target_http_proxy.web.id
}

# ---------------------------------------------------------------------------
# 2. Two VMs for the passthrough load balancers, at the addresses where the
#    second and third simulators answer for them on port 9000.

resource "google_compute_instance" "vm" {
  for_each     = local.vms
  name         = "vm-${each.key}"
  machine_type = "e2-small"

  boot_disk {
    initialize_params {
      image = data.google_compute_image.debian.self_link
    }
  }

  network_interface {
    network    = "default"
    network_ip = each.value
  }
}

# 2a. A target pool behind an external passthrough rule on 127.0.0.10:9000:
#     the traffic keeps its port, and goes to both VMs, even when both
#     are broken.

resource "google_compute_http_health_check" "pool" {
  name                = "pool-hc"
  port                = 9000
  check_interval_sec  = 1
  timeout_sec         = 1
  healthy_threshold   = 2
  unhealthy_threshold = 2
}

resource "google_compute_target_pool" "pool" {
  name          = "pool"
  instances     = [for vm in google_compute_instance.vm : "${vm.zone}/${vm.name}"]
  health_checks = [google_compute_http_health_check.pool.name]
}

resource "google_compute_forwarding_rule" "pool" {
  name       = "pool-rule"
  ip_address = "127.0.0.10"
  port_range = "9000"
  target     = google_compute_target_pool.pool.id
}

# 2b. A passthrough backend service with a failover policy on
#     127.0.0.11:9000: vm-a serves; vm-b takes over when vm-a is
#     unhealthy; with both unhealthy, connections are dropped.

resource "google_compute_instance_group" "vm" {
  for_each  = local.vms
  name      = "group-${each.key}"
  instances = [google_compute_instance.vm[each.key].self_link]
}

resource "google_compute_region_health_check" "failover" {
  name                = "failover-hc"
  check_interval_sec  = 1
  timeout_sec         = 1
  healthy_threshold   = 2
  unhealthy_threshold = 2

  tcp_health_check {
    port = 9000
  }
}

resource "google_compute_region_backend_service" "failover" {
  name                  = "failover"
  protocol              = "TCP"
  load_balancing_scheme = "EXTERNAL"
  health_checks         = [google_compute_region_health_check.failover.id]

  backend {
    group          = google_compute_instance_group.vm["a"].id
    balancing_mode = "CONNECTION"
  }

  backend {
    group          = google_compute_instance_group.vm["b"].id
    balancing_mode = "CONNECTION"
    failover       = true
  }

  failover_policy {
    drop_traffic_if_unhealthy = true
  }
}

resource "google_compute_forwarding_rule" "failover" {
  name                  = "failover-rule"
  load_balancing_scheme = "EXTERNAL"
  ip_address            = "127.0.0.11"
  ports                 = ["9000"]
  backend_service       = google_compute_region_backend_service.failover.id
}

output "urls" {
  description = "What to curl."
  value = {
    application = "http://127.0.0.1:8080/"
    api         = "http://127.0.0.1:8080/api/"
    pool        = "http://127.0.0.10:9000/"
    failover    = "http://127.0.0.11:9000/"
  }
}
