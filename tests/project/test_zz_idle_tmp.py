import socket, subprocess, sys, time, uuid
import pytest
from django.conf import settings
from canasta_service.celery import app as celery_app
from tests.conftest import process_stop, worker_environment
from tests.project.test_tracing import collector  # noqa

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]

def test_idle(collector, tmp_path):
    hostname = f"idle-{uuid.uuid4().hex[:8]}@{socket.gethostname()}"
    env = worker_environment(str(settings.CELERY_BROKER_URL), OTEL_EXPORTER_OTLP_ENDPOINT=f"http://127.0.0.1:{collector.server_address[1]}", OTEL_BSP_SCHEDULE_DELAY="100")
    log = (tmp_path / "w.log").open("wb")
    p = subprocess.Popen([sys.executable, "-m", "celery", "-A", "canasta_service", "worker", "--pool=threads", "--concurrency=2", f"--queues=idle-{uuid.uuid4().hex[:6]}", f"--hostname={hostname}", "--without-gossip", "--without-mingle"], env=env, stdout=log, stderr=subprocess.STDOUT)
    try:
        while not celery_app.control.ping(destination=[hostname], timeout=0.5):
            time.sleep(0.2)
        n0 = len(collector.spans)
        time.sleep(8)
        print("\nIDLE SPANS", len(collector.spans) - n0, sorted({s.name for s in collector.spans}))
    finally:
        process_stop(p)
