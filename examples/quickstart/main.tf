# Quickstart: a few health checks, applied against a local emulator.
# Run `make demo` from the repository root, or by hand:
#   bin/lbhealth-emulator &            # listens on 127.0.0.1:8686
#   make install                       # provider into ~/.terraform.d/plugins
#   terraform init && terraform apply
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

resource "lbhealth_health_check" "web" {
  name               = "web"
  description        = "Is the web tier answering 200 on /healthz?"
  check_interval_sec = 5
  timeout_sec        = 2

  http_health_check {
    port         = 8080
    request_path = "/healthz"
  }
}

resource "lbhealth_health_check" "tls" {
  name = "web-tls"

  # All defaults: port 443, request path /.
  https_health_check {}
}

resource "lbhealth_health_check" "cache" {
  name   = "cache"
  region = "us-central1"

  tcp_health_check {
    port     = 6379
    request  = "PING"
    response = "+PONG"
  }
}

output "health_checks" {
  value = {
    for hc in [lbhealth_health_check.web, lbhealth_health_check.tls, lbhealth_health_check.cache] :
    hc.name => { type = hc.type, self_link = hc.self_link }
  }
}
