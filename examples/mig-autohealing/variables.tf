# The target simulator's first HTTP target (`lbhealth-emulator targets
# --host 127.1.0.1 --http 1`): it listens at 127.1.0.1:9000, the address the
# emulator gives the group's first instance (the first host of its
# --managed-instance-range, 127.1.0.0/16), and mends itself through its
# control API's recover endpoint.
variable "target_port" {
  description = "Port the instances serve, which the autohealing check probes."
  type        = number
  default     = 9000
}

variable "hook_url" {
  description = "What the emulator calls each time it recreates an instance: here the simulator's recover endpoint, the stand-in for a new VM that boots healthy."
  type        = string
  default     = "http://127.0.0.1:8687/targets/http-1/recover"
}

variable "initial_delay_sec" {
  description = "Seconds a new instance has before its check counts. 0 with a target that never recovers shows a recreate loop."
  type        = number
  default     = 5
}
