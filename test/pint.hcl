# pint's rules for the generated alerts: every alert carries a severity the pager
# understands, a summary and a runbook link.
rule {
  match {
    kind = "alerting"
  }
  label "severity" {
    severity = "bug"
    required = true
    values   = ["critical", "warning"]
  }
  label "team" {
    severity = "bug"
    required = true
  }
  label "consumer" {
    severity = "bug"
    required = true
  }
  annotation "summary" {
    severity = "bug"
    required = true
  }
  annotation "description" {
    severity = "bug"
    required = true
  }
  annotation "runbook_url" {
    severity = "bug"
    required = true
    value    = "https://.+#kafka[a-z]+"
  }
}
