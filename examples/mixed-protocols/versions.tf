terraform {
  required_providers {
    lbhealth = {
      source  = "lbhealth/lbhealth"
      version = "~> 0.1"
    }
  }
}

# The emulator at LBHEALTH_EMULATOR_HOST, else 127.0.0.1:8686.
provider "lbhealth" {
  project = "demo-project"
}
