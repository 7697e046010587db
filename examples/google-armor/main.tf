# Cloud Armor that really denies: a hashicorp/google configuration written
# for Google, applied unchanged to lbhealth-emulator. An Application Load
# Balancer on 127.0.0.1:8090 over the demo target on 127.0.0.1:9000, whose
# backend service's security policy denies a source range and SQL
# injection (the preconfigured WAF rule), previews a rule, throttles a path
# and bans clients that hammer another; /static/ is a
# backend bucket, served from --bucket-dir, behind an edge policy.
#
#   mkdir -p /tmp/buckets/armor-static/static && echo hello >/tmp/buckets/armor-static/static/hello.txt
#   bin/lbhealth-emulator --bucket-dir /tmp/buckets & bin/lbhealth-emulator targets &
#   cd examples/google-armor
#   lbhealth-emulator terraform-override
#   terraform init && terraform apply
#   curl -si http://127.0.0.1:8090/ | grep -i x-lbhealth-security-policy   # allowed by the default rule
#   curl -si --interface 127.0.0.2 http://127.0.0.1:8090/                  # 403: rule 1000
#   curl -si "http://127.0.0.1:8090/?id=1'%20OR%20'1'='1"                   # 403: rule 1500, the CRS's SQL injection signatures
#   curl -si "http://127.0.0.1:8090/?comment=1'%20OR%20'1'='1"              # 200: rule 1500 excludes comment
#   for i in $(seq 12); do curl -s -o /dev/null -w '%{http_code} ' http://127.0.0.1:8090/login; done  # 200 x10, then 429 (banned)
#   curl -s http://127.0.0.1:8090/static/hello.txt                         # hello, from the bucket's directory
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

resource "google_compute_security_policy" "armor" {
  name        = "armor"
  description = "Deny a range, preview a rule, throttle and ban."

  rule {
    priority    = 1000
    action      = "deny(403)"
    description = "the range of a misbehaving client"
    match {
      versioned_expr = "SRC_IPS_V1"
      config {
        src_ip_ranges = ["127.0.0.2/32"]
      }
    }
  }

  rule {
    priority    = 1500
    action      = "deny(403)"
    description = "SQL injection, the most certain signatures"
    match {
      expr {
        expression = "evaluatePreconfiguredWaf('sqli-v33-stable', {'sensitivity': 1})"
      }
    }
    # A free-text field the signatures would misread.
    preconfigured_waf_config {
      exclusion {
        target_rule_set = "sqli-v33-stable"
        request_query_param {
          operator = "EQUALS"
          value    = "comment"
        }
      }
    }
  }

  rule {
    priority = 2000
    action   = "deny(404)"
    preview  = true
    match {
      expr {
        expression = "request.path.startsWith('/admin') && !inIpRange(origin.ip, '10.0.0.0/8')"
      }
    }
  }

  rule {
    priority = 3000
    action   = "throttle"
    match {
      expr {
        expression = "request.path.startsWith('/api/')"
      }
    }
    rate_limit_options {
      conform_action = "allow"
      exceed_action  = "deny(429)"
      enforce_on_key = "IP"
      rate_limit_threshold {
        count        = 100
        interval_sec = 60
      }
    }
  }

  rule {
    priority = 4000
    action   = "rate_based_ban"
    match {
      expr {
        expression = "request.path == '/login'"
      }
    }
    rate_limit_options {
      conform_action   = "allow"
      exceed_action    = "deny(429)"
      enforce_on_key   = "IP"
      ban_duration_sec = 120
      rate_limit_threshold {
        count        = 10
        interval_sec = 60
      }
    }
  }

  rule {
    priority    = 2147483647
    action      = "allow"
    description = "default rule"
    match {
      versioned_expr = "SRC_IPS_V1"
      config {
        src_ip_ranges = ["*"]
      }
    }
  }
}

# A policy whose rules are resources of their own, as teams that own one
# rule each write them (a policy's rules are either its rule blocks or
# such resources: terraform-provider-google cannot mix them).
resource "google_compute_security_policy" "team" {
  name = "armor-team"
}

resource "google_compute_security_policy_rule" "bots" {
  security_policy = google_compute_security_policy.team.name
  priority        = 1500
  action          = "deny(403)"
  match {
    expr {
      expression = "request.headers['user-agent'].lower().contains('badbot')"
    }
  }
}

resource "google_compute_security_policy" "edge" {
  name = "armor-edge"
  type = "CLOUD_ARMOR_EDGE"
}

resource "google_compute_region_security_policy" "regional" {
  name = "armor-regional"
  type = "CLOUD_ARMOR"
}

resource "google_compute_health_check" "web" {
  name               = "armor-hc"
  check_interval_sec = 1
  timeout_sec        = 1
  http_health_check {
    port_specification = "USE_SERVING_PORT"
  }
}

resource "google_compute_network_endpoint_group" "web" {
  name                  = "armor-neg"
  network               = "default"
  network_endpoint_type = "NON_GCP_PRIVATE_IP_PORT"
  default_port          = 9000
}

resource "google_compute_network_endpoint" "web" {
  network_endpoint_group = google_compute_network_endpoint_group.web.name
  ip_address             = "127.0.0.1"
  port                   = 9000
}

resource "google_compute_backend_service" "web" {
  name                  = "armor-web"
  protocol              = "HTTP"
  load_balancing_scheme = "EXTERNAL_MANAGED"
  health_checks         = [google_compute_health_check.web.id]
  security_policy       = google_compute_security_policy.armor.id
  edge_security_policy  = google_compute_security_policy.edge.id

  backend {
    group                 = google_compute_network_endpoint_group.web.id
    balancing_mode        = "RATE"
    max_rate_per_endpoint = 100
  }
}

resource "google_compute_backend_bucket" "static" {
  name                 = "armor-static"
  bucket_name          = "armor-static"
  enable_cdn           = true
  edge_security_policy = google_compute_security_policy.edge.id
}

resource "google_compute_url_map" "web" {
  name            = "armor-map"
  default_service = google_compute_backend_service.web.id

  host_rule {
    hosts        = ["*"]
    path_matcher = "all"
  }

  path_matcher {
    name            = "all"
    default_service = google_compute_backend_service.web.id

    path_rule {
      paths   = ["/static/*"]
      service = google_compute_backend_bucket.static.id
    }
  }
}

resource "google_compute_target_http_proxy" "web" {
  name    = "armor-proxy"
  url_map = google_compute_url_map.web.id
}

resource "google_compute_global_forwarding_rule" "web" {
  name                  = "armor-rule"
  ip_address            = "127.0.0.1"
  port_range            = "8090"
  load_balancing_scheme = "EXTERNAL_MANAGED"
  target                = google_compute_target_http_proxy.web.id
}
