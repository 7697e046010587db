#!/usr/bin/env python3
"""Extract terraform-provider-google's documented examples of the resources
the emulator models into one directory each, ready for
scripts/google-examples.sh:

    scripts/google-doc-examples.py /path/to/terraform-provider-google /tmp/examples
    TPG=... scripts/google-examples.sh /tmp/examples/*

An example is kept when every resource and data source it uses is one the
emulator models (and it needs no google-beta provider); the others are
listed with what they lack, so that the count says what was left out.
"""
import os
import re
import subprocess
import sys

# The documentation pages of the modelled resources.
PAGES = [
    "compute_address", "compute_backend_service", "compute_firewall", "compute_forwarding_rule",
    "compute_global_address", "compute_global_forwarding_rule", "compute_health_check",
    "compute_http_health_check", "compute_https_health_check", "compute_instance", "compute_network",
    "compute_network_endpoint", "compute_network_endpoint_group", "compute_network_endpoints",
    "compute_region_backend_service", "compute_region_health_check", "compute_region_network_endpoint",
    "compute_region_network_endpoint_group", "compute_subnetwork", "compute_target_pool",
    "compute_region_health_aggregation_policy", "compute_region_health_source",
    "compute_region_composite_health_check", "compute_disk", "compute_instance_group",
    "compute_instance_template", "compute_instance_group_manager", "compute_region_instance_group_manager",
    "compute_url_map", "compute_region_url_map", "compute_target_http_proxy", "compute_target_https_proxy",
    "compute_region_target_http_proxy", "compute_region_target_https_proxy", "compute_target_tcp_proxy",
    "compute_target_ssl_proxy", "compute_ssl_certificate", "compute_managed_ssl_certificate",
    "compute_region_ssl_certificate", "compute_ssl_policy", "compute_target_instance",
]

# What the emulator serves, as terraform-provider-google names it.
MODELLED = {"google_" + p for p in PAGES} | {"data.google_compute_image"}

PROVIDER = '''terraform {
  required_providers {
    google = {
      source = "hashicorp/google"
    }
  }
}

variable "emulator" {
  type    = string
  default = "http://127.0.0.1:8686"
}

provider "google" {
  project                 = "demo-project"
  region                  = "us-central1"
  zone                    = "us-central1-a"
  access_token            = "x"
  universe_domain         = "emulator.invalid"
  compute_custom_endpoint = "${var.emulator}/compute/v1/"
}

'''


def examples(page_text):
    """Yield (title, hcl) for each example of a documentation page: the
    hcl blocks of each "## Example Usage ..." (or "## Using with ...")
    section, joined."""
    sections = re.split(r"^(## [^\n]*)$", page_text, flags=re.M)
    for header, body in zip(sections[1::2], sections[2::2]):
        m = re.match(r"## (?:Example [Uu]sage(?:\s*-\s*|\s+with\s+|\s*)(.*)|(Using with .+))$", header)
        if not m:
            continue
        blocks = re.findall(r"^```hcl\n(.*?)^```", body, re.M | re.S)
        if blocks:
            yield (m.group(1) or m.group(2) or "Example Usage").strip(), "\n".join(blocks)


def uses(hcl):
    """The resource and data source types an example uses."""
    types = set(re.findall(r'^resource "([a-z0-9_]+)"', hcl, re.M))
    types |= {"data." + t for t in re.findall(r'^data "([a-z0-9_]+)"', hcl, re.M)}
    return types


def certificate(where):
    """Write the self-signed certificate and key that the SSL certificate
    examples read from path/to/certificate.crt and path/to/private.key."""
    os.makedirs(where, exist_ok=True)
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "30",
                    "-subj", "/CN=example.com", "-keyout", os.path.join(where, "private.key"),
                    "-out", os.path.join(where, "certificate.crt")], check=True, capture_output=True)


def main():
    tpg, out = sys.argv[1], sys.argv[2]
    kept, left = 0, []
    for page in PAGES:
        path = os.path.join(tpg, "website", "docs", "r", page + ".html.markdown")
        if not os.path.exists(path):
            continue
        with open(path) as f:
            text = f.read()
        for i, (title, hcl) in enumerate(examples(text)):
            missing = sorted(uses(hcl) - MODELLED)
            if "google-beta" in hcl:
                missing.append("google-beta")
            name = "%s-%d" % (page, i + 1)
            if missing:
                left.append("%s (%s): %s" % (name, title, ", ".join(missing)))
                continue
            os.makedirs(os.path.join(out, name), exist_ok=True)
            with open(os.path.join(out, name, "main.tf"), "w") as f:
                f.write(PROVIDER + hcl)
            if "path/to/certificate.crt" in hcl:
                certificate(os.path.join(out, name, "path", "to"))
            kept += 1
    print("%d examples kept in %s; %d left out:" % (kept, out, len(left)))
    for line in left:
        print("  " + line)


if __name__ == "__main__":
    main()
