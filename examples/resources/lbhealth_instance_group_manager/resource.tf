# Two instances made from a template, recreated when the autohealing check
# finds them unhealthy for 3 probes in a row. The emulator gives each an
# address of its --managed-instance-range (127.1.0.0/16 unless set).
resource "lbhealth_instance_template" "web" {
  name         = "web-template"
  machine_type = "e2-small"
  network      = "default"

  lifecycle {
    create_before_destroy = true
  }
}

resource "lbhealth_health_check" "autohealing" {
  name                = "web-autohealing"
  check_interval_sec  = 5
  timeout_sec         = 5
  healthy_threshold   = 2
  unhealthy_threshold = 3

  http_health_check {
    port         = 8080
    request_path = "/healthz"
  }
}

resource "lbhealth_instance_group_manager" "web" {
  name               = "web-mig"
  zone               = "us-central1-a"
  base_instance_name = "web"
  instance_template  = lbhealth_instance_template.web.id
  target_size        = 2

  named_port {
    name = "http"
    port = 8080
  }

  auto_healing_policies {
    health_check = lbhealth_health_check.autohealing.id
    # Longer than the instances take to start: shorter, autohealing would
    # recreate them before they could pass (a recreate loop).
    initial_delay_sec = 60
  }
}

# Its instances, their current action and the check's verdict.
data "lbhealth_managed_instances" "web" {
  instance_group_manager = lbhealth_instance_group_manager.web.id
}
