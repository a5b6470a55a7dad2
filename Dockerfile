FROM python:3.11-slim
# DEBUG off unless the environment says otherwise: it then needs SECRET_KEY and ALLOWED_HOSTS.
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 PARLOUR_VAR_DIR=/app/var DEBUG=false
WORKDIR /app
COPY pyproject.toml README.md constraints.txt ./
COPY engine engine
COPY events events
COPY tournaments tournaments
COPY parlour parlour
COPY templates templates
COPY manage.py ./
RUN pip install --no-cache-dir -c constraints.txt .
RUN useradd --create-home parlour && mkdir -p /app/var && chown parlour /app/var
USER parlour
EXPOSE 8000
CMD ["gunicorn", "parlour.asgi:application", "-k", "uvicorn_worker.UvicornWorker", "--bind", "0.0.0.0:8000"]
