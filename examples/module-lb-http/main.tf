# The public modules as people use them, unchanged, applied to
# lbhealth-emulator: a managed instance group (terraform-google-modules/vm)
# behind a global external HTTP load balancer (terraform-google-modules/
# lb-http), with a Cloud NAT beside it (terraform-google-modules/cloud-nat),
# autohealed by its own health check. Only the provider blocks say where the
# emulator is. docs/guides/hashicorp-google.md walks through it.
terraform {
  required_providers {
    google = {
      source = "hashicorp/google"
    }
    google-beta = {
      source = "hashicorp/google-beta"
    }
  }
}

variable "emulator" {
  description = "Where lbhealth-emulator listens."
  type        = string
  default     = "http://127.0.0.1:8686"
}

locals {
  project = "demo-project"
  region  = "us-central1"
}

provider "google" {
  project      = local.project
  region       = local.region
  access_token = "x" # any value: the emulator needs no credentials
  # Not googleapis.com, so that the provider does not look up the token's
  # user at start.
  universe_domain         = "emulator.invalid"
  compute_custom_endpoint = "${var.emulator}/compute/v1/"
}

provider "google-beta" {
  project                 = local.project
  region                  = local.region
  access_token            = "x"
  universe_domain         = "emulator.invalid"
  compute_custom_endpoint = "${var.emulator}/compute/v1/"
}

resource "google_compute_network" "web" {
  name                    = "web"
  auto_create_subnetworks = false
}

resource "google_compute_subnetwork" "web" {
  name          = "web"
  network       = google_compute_network.web.self_link
  region        = local.region
  ip_cidr_range = "10.10.0.0/24"
}

# The instances have no external address: their egress goes through Cloud
# NAT, stored and validated by the emulator (it translates nothing).
resource "google_compute_router" "web" {
  name    = "web"
  network = google_compute_network.web.self_link
  region  = local.region
}

module "cloud_nat" {
  source     = "terraform-google-modules/cloud-nat/google"
  version    = "~> 5.0"
  project_id = local.project
  region     = local.region
  router     = google_compute_router.web.name
  name       = "web-nat"
}

module "template" {
  source     = "terraform-google-modules/vm/google//modules/instance_template"
  version    = "~> 12.0"
  project_id = local.project
  region     = local.region
  network    = google_compute_network.web.self_link
  subnetwork = google_compute_subnetwork.web.self_link
  service_account = {
    email  = ""
    scopes = ["cloud-platform"]
  }
  name_prefix = "web"
  tags        = ["web"]
  # In the cloud this starts the web server; in the emulator each instance
  # runs a simulated workload instead, which answers with its own name.
  startup_script = "#!/bin/sh\napt-get install -y nginx"
}

module "mig" {
  source            = "terraform-google-modules/vm/google//modules/mig"
  version           = "~> 12.0"
  project_id        = local.project
  region            = local.region
  instance_template = module.template.self_link
  hostname          = "web"
  target_size       = 3
  named_ports = [{
    name = "http"
    port = 80
  }]
  # Autohealing: an instance failing this check for 3 probes in a row is
  # recreated, once its first 10 seconds (its boot) have passed.
  health_check = {
    type                = "http"
    initial_delay_sec   = 10
    check_interval_sec  = 2
    healthy_threshold   = 1
    timeout_sec         = 1
    unhealthy_threshold = 3
    response            = ""
    proxy_header        = "NONE"
    port                = 80
    request             = ""
    request_path        = "/"
    host                = ""
    enable_logging      = false
  }
}

module "lb" {
  source            = "terraform-google-modules/lb-http/google"
  version           = "~> 12.0"
  project           = local.project
  name              = "web"
  target_tags       = ["web"]
  firewall_networks = [google_compute_network.web.name]

  backends = {
    default = {
      protocol    = "HTTP"
      port        = 80
      port_name   = "http"
      timeout_sec = 10
      enable_cdn  = false
      health_check = {
        check_interval_sec = 2
        timeout_sec        = 1
        request_path       = "/"
        port               = 80
      }
      log_config = {
        enable = false
      }
      groups = [{
        group = module.mig.instance_group
      }]
      iap_config = {
        enable = false
      }
    }
  }
}

output "load_balancer" {
  description = "Where the load balancer listens: curl it."
  value       = "http://${module.lb.external_ip}/"
}
