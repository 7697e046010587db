# Two instances at loopback addresses: whatever listens at 127.0.10.1 and
# 127.0.10.2 answers their probes (they are in the project's default
# network, which the emulator gives every project).
resource "lbhealth_instance" "web_a" {
  name       = "web-a"
  zone       = "us-central1-a"
  network_ip = "127.0.10.1"
}

resource "lbhealth_instance" "web_b" {
  name       = "web-b"
  zone       = "us-central1-a"
  network_ip = "127.0.10.2"
}
