data "lbhealth_backend_health" "site" {
  backend_service = lbhealth_backend_service.site.self_link
}

data "lbhealth_backend_health" "mail" {
  backend_service = lbhealth_backend_service.mail.self_link
}

data "lbhealth_backend_health" "db" {
  backend_service = lbhealth_backend_service.db.self_link
}

# Each service's endpoints: state, and the reason when it is not HEALTHY.
output "health" {
  value = {
    for name, h in {
      site = data.lbhealth_backend_health.site
      mail = data.lbhealth_backend_health.mail
      db   = data.lbhealth_backend_health.db
    } :
    name => [for e in h.endpoints : e.reason == null ? e.health_state : "${e.health_state} (${e.reason})"]
  }
}
