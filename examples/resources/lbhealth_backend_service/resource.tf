# A global HTTP service: one check probes each endpoint of its groups on the
# endpoint's own port (the target simulator serves HTTP on 127.0.0.1:9000-9002).
resource "lbhealth_health_check" "web" {
  name                = "web"
  check_interval_sec  = 5
  timeout_sec         = 2
  unhealthy_threshold = 3

  http_health_check {
    port_specification = "USE_SERVING_PORT"
    request_path       = "/"
  }
}

resource "lbhealth_endpoint_group" "web" {
  name         = "web"
  zone         = "us-central1-a"
  default_port = 9000

  endpoint {
    ip_address = "127.0.0.1"
  }

  endpoint {
    ip_address = "127.0.0.1"
    port       = 9001
  }
}

resource "lbhealth_backend_service" "web" {
  name          = "web"
  description   = "The web tier"
  protocol      = "HTTP"
  health_checks = [lbhealth_health_check.web.self_link]

  # What checks with port_name = "http" probe.
  named_port {
    name = "http"
    port = 9000
  }

  backend {
    group = lbhealth_endpoint_group.web.self_link
  }
}

# A regional gRPC service. gRPC services take gRPC or TCP checks only, and a
# regional service takes a check of its own region (or a global one). References may be ids
# (or self links); they stay as written.
resource "lbhealth_health_check" "grpc" {
  name   = "grpc"
  region = "us-central1"

  grpc_health_check {
    port = 9300
  }
}

resource "lbhealth_endpoint_group" "grpc" {
  name                  = "grpc"
  region                = "us-central1"
  network_endpoint_type = "GCE_VM_IP"

  endpoint {
    ip_address = "127.0.0.1"
  }
}

resource "lbhealth_backend_service" "grpc" {
  name                  = "grpc"
  region                = "us-central1"
  protocol              = "GRPC"
  load_balancing_scheme = "INTERNAL_MANAGED"
  health_checks         = [lbhealth_health_check.grpc.id]

  backend {
    group = lbhealth_endpoint_group.grpc.id
  }
}
