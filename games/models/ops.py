"""Operations: the worker probe of the health endpoint."""

from django.db import models


class WorkerProbe(models.Model):
    """A row written by the ``record_worker_probe`` task: proof that a request reached a worker
    through the broker and the worker reached the database (see the health probe endpoint)."""

    token = models.CharField(max_length=64, unique=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ("-created_at",)

    def __str__(self) -> str:
        return f"WorkerProbe({self.token})"
