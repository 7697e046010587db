# A hashicorp/google configuration written for Google, applied unchanged
# to lbhealth-emulator: an internal passthrough load balancer whose
# endpoints (the demo targets on 127.0.0.1:9000-9002) are probed for real,
# with a health source and a composite health check over it.
#
#   make demo            # or: bin/lbhealth-emulator & bin/lbhealth-emulator targets &
#   cd examples/google
#   lbhealth-emulator terraform-override   # writes lbhealth_override.tf: the provider now points here
#   terraform init && terraform apply
#
# `terraform init` downloads hashicorp/google from the registry; offline,
# point a dev_overrides CLI config at a provider binary (docs/guides/provider-setup.md).
terraform {
  required_providers {
    google = {
      source = "hashicorp/google"
    }
  }
}

provider "google" {
  project = "demo-project"
  region  = "us-central1"
  zone    = "us-central1-a"
}

resource "google_compute_network" "lb" {
  name                    = "lb-net"
  auto_create_subnetworks = false
}

resource "google_compute_subnetwork" "lb" {
  name          = "lb-subnet"
  ip_cidr_range = "10.10.0.0/24"
  network       = google_compute_network.lb.id
}

resource "google_compute_network_endpoint_group" "web" {
  name                  = "web-neg"
  network               = google_compute_network.lb.id
  subnetwork            = google_compute_subnetwork.lb.id
  network_endpoint_type = "GCE_VM_IP_PORT"
  default_port          = 9000
}

# The endpoints: the emulator probes them at these addresses (loopback by
# default; see --probe-networks).
resource "google_compute_network_endpoints" "web" {
  network_endpoint_group = google_compute_network_endpoint_group.web.name

  dynamic "network_endpoints" {
    for_each = [9000, 9001, 9002]
    content {
      ip_address = "127.0.0.1"
      port       = network_endpoints.value
    }
  }
}

resource "google_compute_region_health_check" "web" {
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

resource "google_compute_region_backend_service" "web" {
  name                  = "web-bs"
  protocol              = "TCP"
  load_balancing_scheme = "INTERNAL"
  health_checks         = [google_compute_region_health_check.web.id]

  backend {
    group          = google_compute_network_endpoint_group.web.id
    balancing_mode = "CONNECTION"
  }
}

resource "google_compute_forwarding_rule" "web" {
  name                  = "web-fr"
  load_balancing_scheme = "INTERNAL"
  backend_service       = google_compute_region_backend_service.web.id
  network               = google_compute_network.lb.id
  subnetwork            = google_compute_subnetwork.lb.id
  ip_protocol           = "TCP"
  all_ports             = true
}

resource "google_compute_region_health_aggregation_policy" "web" {
  name                      = "web-hap"
  region                    = "us-central1"
  healthy_percent_threshold = 60
  min_healthy_threshold     = 2
}

resource "google_compute_region_health_source" "web" {
  name                      = "web-hs"
  region                    = "us-central1"
  source_type               = "BACKEND_SERVICE"
  sources                   = [google_compute_region_backend_service.web.id]
  health_aggregation_policy = google_compute_region_health_aggregation_policy.web.id
}

resource "google_compute_region_composite_health_check" "web" {
  name               = "web-chc"
  region             = "us-central1"
  health_sources     = [google_compute_region_health_source.web.id]
  health_destination = google_compute_forwarding_rule.web.id
}

output "backend_service" {
  description = "The backend service: lbhealth-emulator wait --backend-service <this> waits until its endpoints are healthy."
  value       = google_compute_region_backend_service.web.id
}

output "composite_check" {
  description = "The composite health check: lbhealth-emulator wait --composite-check <this> waits until it is HEALTHY."
  value       = google_compute_region_composite_health_check.web.id
}
