# The provider talks to lbhealth-emulator. Every argument is optional:
# endpoint defaults to LBHEALTH_EMULATOR_HOST or 127.0.0.1:8686, project to
# LBHEALTH_PROJECT or "demo-project", region to LBHEALTH_REGION or
# "us-central1", token (needed when the emulator runs with --token) to
# LBHEALTH_TOKEN: keep the token in the environment, not in configuration.
provider "lbhealth" {
  endpoint = "127.0.0.1:8686"
  project  = "demo-project"
  region   = "us-central1"
}
