# A managed instance group of one instance, autohealed by an HTTP check
# that probes it every second: 2 failures in a row make it UNHEALTHY and
# the group recreates it; 1 success makes it HEALTHY again.
resource "lbhealth_health_check" "autohealing" {
  name                = "web-autohealing"
  check_interval_sec  = 1
  timeout_sec         = 1
  healthy_threshold   = 1
  unhealthy_threshold = 2

  http_health_check {
    port = var.target_port
  }
}

resource "lbhealth_instance_template" "web" {
  name         = "web"
  machine_type = "e2-small"

  lifecycle {
    create_before_destroy = true
  }
}

resource "lbhealth_instance_group_manager" "web" {
  name               = "web"
  zone               = "us-central1-a"
  base_instance_name = "web"
  instance_template  = lbhealth_instance_template.web.id
  target_size        = 1

  auto_healing_policies {
    health_check      = lbhealth_health_check.autohealing.id
    initial_delay_sec = var.initial_delay_sec
    hook_url          = var.hook_url
  }
}
