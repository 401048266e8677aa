"""Probes stored before evidence became facts kept up to 2,000 characters of each answer
(`body`, `body_truncated`) and SGLang's `internal_states` as the engine sent them. Drop
them: what a probe keeps is the URL, the status, our reason and the fields it compared
(live_app/conformance/fetch.py). The drift audit events carried no bodies."""

from django.db import migrations

TEXT_KEYS = ("body", "body_truncated")


def scrubbed(evidence):
    if not isinstance(evidence, dict):
        return {}, True
    out, changed = {}, False
    for name, read in evidence.items():
        if name == "internal_states" or not isinstance(read, dict):
            changed = True
            continue
        kept = {k: v for k, v in read.items() if k not in TEXT_KEYS}
        changed = changed or len(kept) != len(read)
        out[name] = kept
    return out, changed


def scrub(apps, schema_editor):
    Probe = apps.get_model("live_app", "Probe")
    for probe in Probe.objects.only("pk", "evidence").iterator(chunk_size=500):
        evidence, changed = scrubbed(probe.evidence)
        if changed:
            Probe.objects.filter(pk=probe.pk).update(evidence=evidence)


class Migration(migrations.Migration):
    dependencies = [("live_app", "0005_probe_actor_requests_metrics_host")]

    operations = [migrations.RunPython(scrub, migrations.RunPython.noop, elidable=True)]
