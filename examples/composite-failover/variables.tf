# The target simulator's HTTP targets (`lbhealth-emulator targets --http 6`):
# http-1..http-3 on 127.0.0.1:9000-9002 serve region one, http-4..http-6 on
# 9003-9005 region two.
variable "region_one_ports" {
  description = "Ports of the service's endpoints in us-central1."
  type        = list(number)
  default     = [9000, 9001, 9002]
}

variable "region_two_ports" {
  description = "Ports of the service's endpoints in us-east1."
  type        = list(number)
  default     = [9003, 9004, 9005]
}
