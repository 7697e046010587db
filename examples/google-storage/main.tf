# A static site in a Cloud Storage bucket behind a global external
# Application Load Balancer, in hashicorp/google resources: the bucket
# (its website pages), its objects, public read through IAM, a backend
# bucket, and the load balancer's URL map, proxy and forwarding rule,
# which lbhealth-emulator really listens on and answers from the bucket.
#
#   bin/lbhealth-emulator --in-memory &
#   cd examples/google-storage && terraform init && terraform apply
#   curl http://127.0.0.1:8081/            # index.html
#   curl http://127.0.0.1:8081/missing     # 404.html, with 404
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
  access_token = "x" # any value: the emulator needs no credentials
  # Not googleapis.com, so that the provider does not look up the token's
  # user at start (it would wait minutes for Google to answer).
  universe_domain         = "emulator.invalid"
  compute_custom_endpoint = "${var.emulator}/compute/v1/"
  storage_custom_endpoint = "${var.emulator}/storage/v1/"
}

resource "google_storage_bucket" "site" {
  name                        = "demo-project-site"
  location                    = "US"
  uniform_bucket_level_access = true
  force_destroy               = true
  website {
    main_page_suffix = "index.html"
    not_found_page   = "404.html"
  }
}

resource "google_storage_bucket_object" "index" {
  name          = "index.html"
  bucket        = google_storage_bucket.site.name
  content       = "<h1>Served from Cloud Storage</h1>"
  content_type  = "text/html"
  cache_control = "public, max-age=300"
}

resource "google_storage_bucket_object" "not_found" {
  name         = "404.html"
  bucket       = google_storage_bucket.site.name
  content      = "<h1>Not here</h1>"
  content_type = "text/html"
}

resource "google_storage_bucket_iam_member" "public" {
  bucket = google_storage_bucket.site.name
  role   = "roles/storage.objectViewer"
  member = "allUsers"
}

resource "google_compute_backend_bucket" "site" {
  name        = "site"
  bucket_name = google_storage_bucket.site.name
  enable_cdn  = true
}

resource "google_compute_url_map" "site" {
  name            = "site"
  default_service = google_compute_backend_bucket.site.id
}

resource "google_compute_target_http_proxy" "site" {
  name    = "site"
  url_map = google_compute_url_map.site.id
}

resource "google_compute_global_forwarding_rule" "site" {
  name                  = "site"
  load_balancing_scheme = "EXTERNAL_MANAGED"
  ip_address            = "127.0.0.1"
  port_range            = "8081"
  target                = google_compute_target_http_proxy.site.id
}

output "site" {
  value = "http://127.0.0.1:8081/"
}
