# What a managed group's instances are: one interface in the default
# network. The emulator gives each instance an address of its
# --managed-instance-range (127.1.0.0/16 unless set).
resource "lbhealth_instance_template" "web" {
  name         = "web-template"
  machine_type = "e2-small"
  network      = "default"

  # A template cannot change: a new one replaces it, made before the old
  # one is deleted so that the group can move to it.
  lifecycle {
    create_before_destroy = true
  }
}
