# Let the cloud's health-check probers reach the backends of the default
# network on the ports they serve: without such a rule, the emulator's
# findings say the probes would be blocked.
resource "lbhealth_firewall" "allow_health_checks" {
  name          = "allow-health-checks"
  network       = "default"
  source_ranges = ["35.191.0.0/16", "130.211.0.0/22"]

  allow {
    protocol = "tcp"
    ports    = ["80", "8080", "9000-9002"]
  }
}
