"""deploy/k8s: every document is valid against Kubernetes' own schemas (kubernetes-validate,
strict: an unknown or misspelt field is an error) for the version the manifests target, and
the project's invariants hold across the files (probes and resources everywhere, one beat,
every PDB, HPA, Service and Ingress pointing at something that exists, one image, one label
scheme, one worker Deployment per task queue)."""

from __future__ import annotations

import copy
import shlex
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import kubernetes_validate  # type: ignore[import-untyped]
import pytest
import yaml
from django.conf import settings
from django.urls import reverse

ROOT = Path(__file__).resolve().parents[2]
K8S = ROOT / "deploy" / "k8s"
KUBERNETES_VERSION = "1.30"
NAMESPACE = "canasta"
IMAGE = "canasta-service"
# Applied on its own before the rollout (kustomization.yaml says why), so not a resource there.
APPLIED_BEFORE = {"migrate-job.yaml"}

Doc = dict[str, Any]


def documents() -> Iterator[tuple[str, Doc]]:
    for path in sorted(K8S.glob("*.yaml")):
        for doc in yaml.safe_load_all(path.read_text()):
            if doc is not None:
                yield path.name, doc


def resources() -> list[Doc]:
    return [doc for _, doc in documents() if doc["kind"] != "Kustomization"]


def of_kind(kind: str) -> dict[str, Doc]:
    return {doc["metadata"]["name"]: doc for doc in resources() if doc["kind"] == kind}


def pod_spec(doc: Doc) -> Doc:
    spec: Doc = doc["spec"]["template"]["spec"]
    return spec


def matches(selector: dict[str, str], labels: dict[str, str]) -> bool:
    return all(labels.get(key) == value for key, value in selector.items())


def selected(selector: dict[str, str]) -> list[str]:
    """The Deployments whose pods the label selector picks."""
    return [
        name
        for name, deployment in of_kind("Deployment").items()
        if matches(selector, deployment["spec"]["template"]["metadata"]["labels"])
    ]


def test_the_directory_holds_every_kind_of_resource() -> None:
    kinds = {doc["kind"] for doc in resources()}
    assert kinds >= {
        "Namespace",
        "ConfigMap",
        "Secret",
        "Deployment",
        "Job",
        "Service",
        "Ingress",
        "PodDisruptionBudget",
        "HorizontalPodAutoscaler",
    }


@pytest.mark.parametrize(
    "doc",
    [doc for _, doc in documents() if doc["kind"] != "Kustomization"],
    ids=lambda doc: f"{doc['kind']}/{doc['metadata']['name']}",
)
def test_every_document_is_valid_for_the_pinned_kubernetes(doc: Doc) -> None:
    assert kubernetes_validate.validate(doc, KUBERNETES_VERSION, strict=True) == KUBERNETES_VERSION


def test_the_validation_refuses_a_misspelt_field() -> None:
    deployment = copy.deepcopy(of_kind("Deployment")["canasta-api"])
    deployment["spec"]["replica"] = deployment["spec"].pop("replicas")
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(deployment, KUBERNETES_VERSION, strict=True)
    probe = copy.deepcopy(of_kind("Deployment")["canasta-api"])
    pod_spec(probe)["containers"][0]["readinessProbe"]["periodSeconds"] = "ten"
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(probe, KUBERNETES_VERSION, strict=True)


def test_kustomization_lists_every_file() -> None:
    kustomization = yaml.safe_load((K8S / "kustomization.yaml").read_text())
    files = {path.name for path in K8S.glob("*.yaml")} - {"kustomization.yaml"}
    assert set(kustomization["resources"]) == files - APPLIED_BEFORE
    assert kustomization["namespace"] == NAMESPACE
    assert [image["name"] for image in kustomization["images"]] == [IMAGE]


def test_every_resource_is_in_the_namespace_with_the_projects_labels() -> None:
    for doc in resources():
        metadata = doc["metadata"]
        if doc["kind"] != "Namespace":
            assert metadata["namespace"] == NAMESPACE, metadata["name"]
        assert metadata["labels"]["app.kubernetes.io/part-of"] == "canasta", metadata["name"]


def workloads() -> dict[str, Doc]:
    return {**of_kind("Deployment"), **of_kind("Job")}


def test_every_workload_runs_the_one_image_locked_down() -> None:
    for name, doc in workloads().items():
        spec = pod_spec(doc)
        assert spec["automountServiceAccountToken"] is False, name
        assert spec["securityContext"]["runAsNonRoot"] is True, name
        assert spec["securityContext"]["runAsUser"] == 1000, name  # the Dockerfile's user
        assert spec["securityContext"]["seccompProfile"] == {"type": "RuntimeDefault"}, name
        for container in spec["containers"]:
            assert container["image"] == IMAGE, name
            context = container["securityContext"]
            assert context["readOnlyRootFilesystem"] is True, name
            assert context["allowPrivilegeEscalation"] is False, name
            assert context["capabilities"] == {"drop": ["ALL"]}, name
            # The one writable place (gunicorn's heartbeat files, beat's schedule).
            assert {"name": "tmp", "mountPath": "/tmp"} in container["volumeMounts"], name
            assert set(container["resources"]["requests"]) == {"cpu", "memory"}, name
            assert "memory" in container["resources"]["limits"], name
            refs = [next(iter(source.values()))["name"] for source in container["envFrom"]]
            assert refs == ["canasta-config", "canasta-secrets"], name


def test_every_deployment_has_probes_and_consistent_labels() -> None:
    served = {
        name
        for service in of_kind("Service").values()
        for name in selected(service["spec"]["selector"])
    }
    assert served == {"canasta-api", "canasta-live"}
    config = of_kind("ConfigMap")["canasta-config"]["data"]
    health = reverse("health")
    for name, doc in of_kind("Deployment").items():
        labels = doc["metadata"]["labels"]
        assert name == f"canasta-{labels['app.kubernetes.io/component']}"
        selector = doc["spec"]["selector"]["matchLabels"]
        assert matches(selector, doc["spec"]["template"]["metadata"]["labels"]), name
        assert selected(selector) == [name], f"{name}'s selector picks other pods"
        [container] = pod_spec(doc)["containers"]
        assert "livenessProbe" in container, name
        if name not in served:
            continue
        # A server: started, ready and alive, the first two on the health endpoint (with a
        # Host header the settings allow).
        for probe in ("startupProbe", "readinessProbe"):
            get = container[probe]["httpGet"]
            assert get["path"] == health, (name, probe)
            [host] = [h["value"] for h in get["httpHeaders"] if h["name"] == "Host"]
            assert host in config["ALLOWED_HOSTS"].split(","), (name, probe)
        # A database outage must take the pods out of the Service, not restart them all.
        assert "httpGet" not in container["livenessProbe"], name


def test_the_live_servers_have_time_to_drain() -> None:
    live = of_kind("Deployment")["canasta-live"]
    [container] = pod_spec(live)["containers"]
    command = container["command"]
    graceful = int(command[command.index("--graceful-timeout") + 1])
    pre_stop = int(container["lifecycle"]["preStop"]["exec"]["command"][-1])
    assert pod_spec(live)["terminationGracePeriodSeconds"] >= pre_stop + graceful + 5
    assert graceful >= 75, "a long-poll must be able to answer before its worker stops"
    assert command[command.index("-k") + 1] == "canasta_service.live_worker.LiveWorker"


def test_beat_is_a_singleton() -> None:
    beat = of_kind("Deployment")["canasta-beat"]
    assert beat["spec"]["replicas"] == 1
    assert beat["spec"]["strategy"] == {"type": "Recreate"}
    targets = {
        hpa["spec"]["scaleTargetRef"]["name"] for hpa in of_kind("HorizontalPodAutoscaler").values()
    }
    assert "canasta-beat" not in targets
    [container] = pod_spec(beat)["containers"]
    assert container["command"][3] == "beat"
    others = [
        name
        for name, doc in of_kind("Deployment").items()
        if name != "canasta-beat" and "beat" in pod_spec(doc)["containers"][0]["command"]
    ]
    assert others == []


def test_one_worker_deployment_per_task_queue_scaled_on_its_length() -> None:
    hpas = {
        hpa["spec"]["scaleTargetRef"]["name"]: hpa
        for hpa in of_kind("HorizontalPodAutoscaler").values()
    }
    for kind, queue in settings.TASK_QUEUES.items():
        name = f"canasta-worker-{kind}"
        [container] = pod_spec(of_kind("Deployment")[name])["containers"]
        assert f"--queues={queue}" in container["command"], name
        [metric] = hpas[name]["spec"]["metrics"]
        assert metric["type"] == "External"
        assert metric["external"]["metric"]["name"] == "canasta_celery_queue_length"
        assert metric["external"]["metric"]["selector"]["matchLabels"] == {"queue": queue}
    workers = {
        name
        for name, doc in of_kind("Deployment").items()
        if "worker" in pod_spec(doc)["containers"][0]["command"]
    }
    assert workers == {f"canasta-worker-{kind}" for kind in settings.TASK_QUEUES}


def test_the_api_scales_on_cpu_and_the_live_tier_on_connections() -> None:
    hpas = {
        hpa["spec"]["scaleTargetRef"]["name"]: hpa
        for hpa in of_kind("HorizontalPodAutoscaler").values()
    }
    [api] = hpas["canasta-api"]["spec"]["metrics"]
    assert api["type"] == "Resource" and api["resource"]["name"] == "cpu"
    live = {metric["type"]: metric for metric in hpas["canasta-live"]["spec"]["metrics"]}
    assert live["Pods"]["pods"]["metric"]["name"] == "canasta_live_followers"


def test_every_pdb_and_hpa_targets_an_existing_deployment() -> None:
    deployments = of_kind("Deployment")
    for name, pdb in of_kind("PodDisruptionBudget").items():
        assert selected(pdb["spec"]["selector"]["matchLabels"]) == [name], name
    for name, hpa in of_kind("HorizontalPodAutoscaler").items():
        target = hpa["spec"]["scaleTargetRef"]
        assert target["kind"] == "Deployment" and target["name"] in deployments, name
        assert target["name"] == name
        assert hpa["spec"]["minReplicas"] == deployments[name]["spec"]["replicas"], name
    # Everything that runs more than one pod has a budget; beat has none to spread.
    budgets = set(of_kind("PodDisruptionBudget"))
    assert budgets == set(deployments) - {"canasta-beat"}


def test_services_and_ingresses_point_at_what_exists() -> None:
    services = of_kind("Service")
    for name, service in services.items():
        [deployment] = selected(service["spec"]["selector"])
        [container] = pod_spec(of_kind("Deployment")[deployment])["containers"]
        ports = {port["name"] for port in container["ports"]}
        assert {port["targetPort"] for port in service["spec"]["ports"]} <= ports, name
    routed = set()
    for ingress in of_kind("Ingress").values():
        for rule in ingress["spec"]["rules"]:
            for path in rule["http"]["paths"]:
                backend = path["backend"]["service"]
                assert backend["name"] in services
                port_names = {port["name"] for port in services[backend["name"]]["spec"]["ports"]}
                assert backend["port"]["name"] in port_names
                routed.add(backend["name"])
    assert routed == {"canasta-api", "canasta-live"}
    live = of_kind("Ingress")["canasta-live"]["metadata"]["annotations"]
    assert live["nginx.ingress.kubernetes.io/proxy-buffering"] == "off"
    assert int(live["nginx.ingress.kubernetes.io/proxy-read-timeout"]) >= 3600


def test_the_migration_job_runs_the_migrations_only() -> None:
    job = of_kind("Job")["canasta-migrate"]
    [container] = pod_spec(job)["containers"]
    assert container["command"] == shlex.split("python manage.py migrate --noinput")
    assert pod_spec(job)["restartPolicy"] == "Never"
    for doc in of_kind("Deployment").values():
        assert "migrate" not in pod_spec(doc)["containers"][0]["command"]
