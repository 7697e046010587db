# Read a health check managed elsewhere.
data "lbhealth_health_check" "web" {
  name = "web-http"
}

output "web_check_port" {
  value = data.lbhealth_health_check.web.http_health_check.port
}
