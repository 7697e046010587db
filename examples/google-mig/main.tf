# A hashicorp/google configuration, unchanged but for the provider block,
# applied to lbhealth-emulator: a managed instance group made from an
# instance template, autohealed by a health check and sized by an
# autoscaler, behind a backend service that probes its instances through
# the group's named port.
#
#   bin/lbhealth-emulator &
#   cd examples/google-mig && terraform init && terraform apply
#
# The group's instances get addresses of --managed-instance-range
# (127.1.0.0/16), where the emulator's simulated workloads answer their
# probes on port 8080 once they have booted (--workloads, on by default).
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

resource "google_compute_instance_template" "web" {
  name         = "web-template"
  machine_type = "e2-small"

  disk {
    source_image = data.google_compute_image.debian.self_link
    auto_delete  = true
    boot         = true
  }

  network_interface {
    network = "default"
  }
}

resource "google_compute_health_check" "autohealing" {
  name                = "web-autohealing"
  check_interval_sec  = 5
  timeout_sec         = 5
  healthy_threshold   = 2
  unhealthy_threshold = 3

  http_health_check {
    port_name          = "http"
    port_specification = "USE_NAMED_PORT"
    request_path       = "/"
  }
}

resource "google_compute_instance_group_manager" "web" {
  name               = "web-mig"
  base_instance_name = "web"
  target_size        = 2

  version {
    instance_template = google_compute_instance_template.web.self_link_unique
  }

  named_port {
    name = "http"
    port = 8080
  }

  auto_healing_policies {
    health_check      = google_compute_health_check.autohealing.id
    initial_delay_sec = 300
  }
}

# Between 2 and 4 instances. The group carries no traffic here (no
# forwarding rule): it stays at its minimum. Behind a load balancer, the
# requests it carries size it (docs/guides/api.md, Autoscaling).
resource "google_compute_autoscaler" "web" {
  name   = "web-autoscaler"
  target = google_compute_instance_group_manager.web.id

  autoscaling_policy {
    min_replicas    = 2
    max_replicas    = 4
    cooldown_period = 60

    cpu_utilization {
      target = 0.6
    }
  }
}

resource "google_compute_backend_service" "web" {
  name                  = "web-backend"
  protocol              = "HTTP"
  port_name             = "http"
  load_balancing_scheme = "EXTERNAL_MANAGED"
  health_checks         = [google_compute_health_check.autohealing.id]

  backend {
    group = google_compute_instance_group_manager.web.instance_group
  }
}
