"""Settings: the config schema, loading and merging agent-config.yml with instance.yml, a domain's folders."""
