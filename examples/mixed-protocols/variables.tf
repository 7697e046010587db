# Where `lbhealth-emulator targets` listens by default (base port 9000).
variable "target_host" {
  type    = string
  default = "127.0.0.1"
}

variable "http_port" {
  type    = number
  default = 9000
}

variable "dns_port" {
  type    = number
  default = 9600
}

variable "smtp_port" {
  type    = number
  default = 9700
}

variable "postgres_port" {
  type    = number
  default = 10300
}

# The database login of the SQL check. It is sensitive: the emulator probes
# with it but never returns it, logs it or shows it.
variable "postgres_dsn" {
  type      = string
  sensitive = true
  default   = "postgres://monitor:example-only@/app?sslmode=disable"
}
