# terraform test against the emulator: each run applies the module (the
# state carries from one run to the next) and asserts on what the probes
# measured; the last run shows a rule refused at plan time.

run "serves" {
  assert {
    condition     = data.lbhealth_backend_health.web.all_healthy
    error_message = "Not every endpoint is HEALTHY: ${jsonencode(output.health)}"
  }
}

run "breaks" {
  variables {
    broken = true
  }

  assert {
    condition     = output.health["127.0.13.2"] == "UNHEALTHY"
    error_message = "web-b answers 500, yet it is ${output.health["127.0.13.2"]}."
  }

  assert {
    condition     = output.health["127.0.13.1"] == "HEALTHY"
    error_message = "web-a was not broken, yet it is ${output.health["127.0.13.1"]}."
  }
}

run "heals" {
  variables {
    broken = false
  }

  assert {
    condition     = data.lbhealth_backend_health.web.healthy_count == 2
    error_message = "After healing, ${data.lbhealth_backend_health.web.healthy_count} of 2 endpoints are HEALTHY."
  }
}

run "timeout_longer_than_interval" {
  command = plan

  variables {
    timeout_sec = 5
  }

  expect_failures = [var.timeout_sec]
}
