# A hashicorp/google global external Application LB, unchanged but for the
# provider block, whose backends the cloud's probers cannot reach until a
# firewall rule lets them in: the most common mistake with health checks.
# Run the emulator with the firewall enforced, as the cloud enforces it:
#
#   bin/lbhealth-emulator --in-memory --firewalls enforce &
#   bin/lbhealth-emulator targets &        # the demo targets, 127.0.0.1:9000-9002
#   cd examples/google-firewall && terraform init && terraform apply
#
# The endpoints are UNHEALTHY with reason FIREWALL_BLOCKED, and getHealth's
# `firewall` names the rule to add. Then
#
#   terraform apply -var allow_probers=true
#
# adds it, and they turn HEALTHY. With the default --firewalls warn, they
# are probed either way and the finding is a warning.
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

variable "allow_probers" {
  description = "Whether the firewall lets the cloud's health-check probers in."
  type        = bool
  default     = false
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

# The VM behind the load balancer, tagged for the firewall rule. Its
# address is loopback, where the demo targets answer for it.
resource "google_compute_instance" "web" {
  name         = "web-1"
  machine_type = "e2-small"
  tags         = ["web"]

  boot_disk {
    initialize_params {
      image = data.google_compute_image.debian.self_link
    }
  }

  network_interface {
    network    = "default"
    network_ip = "127.0.0.1"
  }
}

resource "google_compute_network_endpoint_group" "web" {
  name                  = "web-neg"
  network               = "default"
  network_endpoint_type = "GCE_VM_IP_PORT"
  default_port          = 9000
}

resource "google_compute_network_endpoints" "web" {
  network_endpoint_group = google_compute_network_endpoint_group.web.name

  dynamic "network_endpoints" {
    for_each = [9000, 9001, 9002]
    content {
      instance   = google_compute_instance.web.name
      ip_address = "127.0.0.1"
      port       = network_endpoints.value
    }
  }
}

resource "google_compute_health_check" "web" {
  name                = "web-hc"
  check_interval_sec  = 1
  timeout_sec         = 1
  healthy_threshold   = 1
  unhealthy_threshold = 2

  http_health_check {
    port_specification = "USE_SERVING_PORT"
    request_path       = "/"
  }
}

resource "google_compute_backend_service" "web" {
  name                  = "web-backend"
  protocol              = "HTTP"
  load_balancing_scheme = "EXTERNAL_MANAGED"
  health_checks         = [google_compute_health_check.web.id]

  backend {
    group                 = google_compute_network_endpoint_group.web.id
    balancing_mode        = "RATE"
    max_rate_per_endpoint = 100
  }
}

resource "google_compute_url_map" "web" {
  name            = "web-map"
  default_service = google_compute_backend_service.web.id
}

resource "google_compute_target_http_proxy" "web" {
  name    = "web-proxy"
  url_map = google_compute_url_map.web.id
}

resource "google_compute_global_forwarding_rule" "web" {
  name                  = "web-rule"
  load_balancing_scheme = "EXTERNAL_MANAGED"
  port_range            = "80"
  target                = google_compute_target_http_proxy.web.id
}

# The rule the probers need: a global external Application LB's come from
# 35.191.0.0/16 (and 2600:2d00:1:b029::/64 over IPv6).
resource "google_compute_firewall" "allow_health_checks" {
  count         = var.allow_probers ? 1 : 0
  name          = "allow-health-checks"
  network       = "default"
  direction     = "INGRESS"
  source_ranges = ["35.191.0.0/16"]
  target_tags   = ["web"]

  allow {
    protocol = "tcp"
  }
}

output "health" {
  description = "Where to read the endpoints' health."
  value       = "${var.emulator}/compute/v1/projects/demo-project/global/backendServices/web-backend/getHealth"
}
