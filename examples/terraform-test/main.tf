# A load balancer's backend, tested with Terraform's own test framework
# against the emulator: `terraform test` applies it (tests/*.tftest.hcl),
# asserts that the probes find both instances HEALTHY, breaks one
# instance's workload and asserts the probes see it UNHEALTHY, heals it,
# and shows a rule refused at plan time. From the repository root:
#   make install && bin/lbhealth-emulator &
#   cd examples/terraform-test && terraform init && terraform test
# (docs/guides/terraform-test.md says more, with hashicorp/google too.)
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

variable "broken" {
  description = "Break web-b: its workload answers 500 to every request."
  type        = bool
  default     = false
}

variable "check_interval_sec" {
  type    = number
  default = 1
}

variable "timeout_sec" {
  type    = number
  default = 1

  # The Compute API's rule, checked at plan time so that a test can
  # expect it (expect_failures takes a variable or a condition of the
  # configuration, not a provider's error).
  validation {
    condition     = var.timeout_sec <= var.check_interval_sec
    error_message = "timeout_sec (${var.timeout_sec}) must be less than or equal to check_interval_sec (${var.check_interval_sec})."
  }
}

# Two instances the emulator serves: a simulated workload at each address
# answers whatever port their checks and load balancers reach.
resource "lbhealth_instance" "web" {
  for_each   = { a = "127.0.13.1", b = "127.0.13.2" }
  name       = "web-${each.key}"
  zone       = "us-central1-a"
  network_ip = each.value
}

resource "lbhealth_instance_group" "web" {
  name      = "web"
  zone      = "us-central1-a"
  instances = [for i in lbhealth_instance.web : i.id]

  named_port {
    name = "http"
    port = 8080
  }
}

resource "lbhealth_health_check" "web" {
  name                = "web"
  check_interval_sec  = var.check_interval_sec
  timeout_sec         = var.timeout_sec
  healthy_threshold   = 1
  unhealthy_threshold = 1

  http_health_check {
    port_specification = "USE_NAMED_PORT"
    port_name          = "http"
  }
}

resource "lbhealth_backend_service" "web" {
  name          = "web"
  health_checks = [lbhealth_health_check.web.id]

  backend {
    group = lbhealth_instance_group.web.id
  }
}

# web-b's workload: healthy ("ok") unless the test breaks it.
resource "lbhealth_workload" "web_b" {
  instance = lbhealth_instance.web["b"].id
  mode     = var.broken ? "status-500" : "ok"
}

# Read once the apply has changed the workload, waiting until the probes
# agree: both HEALTHY, or, broken, one UNHEALTHY.
data "lbhealth_backend_health" "web" {
  backend_service = lbhealth_backend_service.web.id
  depends_on      = [lbhealth_workload.web_b]

  wait_for {
    min_healthy   = var.broken ? null : 2
    min_unhealthy = var.broken ? 1 : null
    timeout       = "1m"
  }
}

output "health" {
  description = "Each endpoint's address and state."
  value       = { for e in data.lbhealth_backend_health.web.endpoints : e.ip_address => e.health_state }
}
