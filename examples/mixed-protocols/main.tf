# A site whose health is more than one protocol: the web front end must
# answer HTTP and its name must resolve (a scenario of both), the mail relay
# must greet over SMTP, and the database must answer a query.

resource "lbhealth_health_check" "web" {
  name               = "web-http"
  check_interval_sec = 2
  timeout_sec        = 1

  http_health_check {
    port_specification = "USE_SERVING_PORT"
  }
}

resource "lbhealth_health_check" "dns" {
  name               = "site-dns"
  check_interval_sec = 2
  timeout_sec        = 1

  dns_health_check {
    port            = var.dns_port
    query_name      = "web.example.com"
    expected_answer = "192.0.2.1"
  }
}

# Healthy only while both pass: a web server nobody can resolve serves no one.
resource "lbhealth_health_check" "site" {
  name               = "site"
  check_interval_sec = 2
  timeout_sec        = 2

  scenario_health_check {
    operator      = "AND"
    health_checks = [lbhealth_health_check.web.id, lbhealth_health_check.dns.id]
  }
}

resource "lbhealth_health_check" "mail" {
  name               = "mail-smtp"
  check_interval_sec = 2
  timeout_sec        = 1

  smtp_health_check {
    port_specification = "USE_SERVING_PORT"
    helo_domain        = "probe.example.com"
  }
}

resource "lbhealth_health_check" "db" {
  name               = "db-sql"
  check_interval_sec = 2
  timeout_sec        = 2

  sql_health_check {
    port_specification = "USE_SERVING_PORT"
    driver             = "postgres"
    dsn                = var.postgres_dsn
    query              = "SELECT 1"
  }
}

resource "lbhealth_endpoint_group" "web" {
  name = "web"
  zone = "us-central1-a"

  endpoint {
    ip_address = var.target_host
    port       = var.http_port
  }
}

resource "lbhealth_endpoint_group" "mail" {
  name = "mail"
  zone = "us-central1-a"

  endpoint {
    ip_address = var.target_host
    port       = var.smtp_port
  }
}

resource "lbhealth_endpoint_group" "db" {
  name = "db"
  zone = "us-central1-a"

  endpoint {
    ip_address = var.target_host
    port       = var.postgres_port
  }
}

resource "lbhealth_backend_service" "site" {
  name          = "site"
  health_checks = [lbhealth_health_check.site.id]

  backend {
    group = lbhealth_endpoint_group.web.id
  }
}

resource "lbhealth_backend_service" "mail" {
  name          = "mail"
  protocol      = "TCP"
  health_checks = [lbhealth_health_check.mail.id]

  backend {
    group = lbhealth_endpoint_group.mail.id
  }
}

resource "lbhealth_backend_service" "db" {
  name          = "db"
  protocol      = "TCP"
  health_checks = [lbhealth_health_check.db.id]

  backend {
    group = lbhealth_endpoint_group.db.id
  }
}
