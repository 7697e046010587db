# A zonal group of the target simulator's HTTP endpoints
# (`lbhealth-emulator targets` serves HTTP on 127.0.0.1:9000-9002).
resource "lbhealth_endpoint_group" "web" {
  name         = "web-zonal"
  zone         = "us-central1-a"
  description  = "The web tier"
  default_port = 9000

  # No port: the group's default_port, 9000.
  endpoint {
    ip_address = "127.0.0.1"
    instance   = "web-1"
  }

  endpoint {
    ip_address = "127.0.0.1"
    port       = 9001
    instance   = "web-2"
  }

  # A stopped endpoint is never probed: it reports UNHEALTHY, reason STOPPED.
  endpoint {
    ip_address = "127.0.0.1"
    port       = 9002
    instance   = "web-3"
    state      = "STOPPED"
  }
}

# With neither zone nor region, a group is regional in the provider's region.
# GCE_VM_IP endpoints have no port: the health check's port is probed.
resource "lbhealth_endpoint_group" "api" {
  name                  = "api-vms"
  network_endpoint_type = "GCE_VM_IP"

  endpoint {
    ip_address = "127.0.0.1"
    instance   = "api-1"
  }
}
