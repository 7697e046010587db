# What autohealing is doing: each instance's current action and the
# check's verdict, read live on every plan, apply or refresh.
data "lbhealth_managed_instances" "web" {
  instance_group_manager = lbhealth_instance_group_manager.web.id
}

output "instances" {
  description = "Each instance: its id (a recreated instance has a new one), current action and verdict."
  value = {
    for i in data.lbhealth_managed_instances.web.instances :
    i.name => "id ${i.instance_id}: ${i.current_action} ${coalesce(i.health_state, "-")}"
  }
}

output "recreate_loop" {
  description = "Empty, or which instance autohealing keeps recreating before it could pass its first check."
  value       = data.lbhealth_managed_instances.web.recreate_loop
}

# Warns (it does not fail the apply) while an instance is in a recreate loop.
check "web_not_looping" {
  assert {
    condition     = data.lbhealth_managed_instances.web.recreate_loop == ""
    error_message = data.lbhealth_managed_instances.web.recreate_loop
  }
}
