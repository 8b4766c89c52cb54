"""Client-to-server TLS with the real Python clients: the DataStax driver with an
`ssl_context`, and cqlsh 6.2 with `--ssl` (SSL_CERTFILE / SSL_VALIDATE, and a cqlshrc with
`userkey`/`usercert` for client certificates).

The Rust test `tls::python` starts two servers with generated certificates and passes them in
CQL_TLS_PORT (TLS required), CQL_MTLS_PORT (TLS and a client certificate required),
CQL_TLS_CA, CQL_TLS_CLIENT_CERT, CQL_TLS_CLIENT_KEY and CQL_TLS_DIR; the plain pytest run
has none of them and skips this file."""
import os
import ssl
import subprocess
import sys
import uuid

import pytest

pytestmark = pytest.mark.skipif(
    "CQL_TLS_PORT" not in os.environ, reason="needs the TLS servers of the Rust test tls::python"
)

HOST = os.environ.get("CQL_HOST", "127.0.0.1")


def ssl_context(client_cert=False):
    context = ssl.create_default_context(ssl.Purpose.SERVER_AUTH, cafile=os.environ["CQL_TLS_CA"])
    if client_cert:
        context.load_cert_chain(os.environ["CQL_TLS_CLIENT_CERT"], os.environ["CQL_TLS_CLIENT_KEY"])
    return context


def connect(port, context):
    from cassandra.cluster import Cluster

    cluster = Cluster(
        contact_points=[HOST],
        port=port,
        ssl_context=context,
        ssl_options={"server_hostname": HOST} if context is not None else None,
        connect_timeout=5,
        control_connection_timeout=5,
    )
    return cluster, cluster.connect()


def test_driver_over_tls_round_trip():
    cluster, session = connect(int(os.environ["CQL_TLS_PORT"]), ssl_context())
    try:
        ks = "tls_" + uuid.uuid4().hex[:10]
        session.execute(
            f"CREATE KEYSPACE {ks} WITH replication = {{'class': 'SimpleStrategy', 'replication_factor': 1}}"
        )
        session.execute(f"CREATE TABLE {ks}.t (k int PRIMARY KEY, v text)")
        insert = session.prepare(f"INSERT INTO {ks}.t (k, v) VALUES (?, ?)")
        for k in range(50):
            session.execute(insert, (k, f"v{k}"))
        rows = list(session.execute(f"SELECT k, v FROM {ks}.t"))
        assert sorted(r.k for r in rows) == list(range(50))
        assert session.execute(f"SELECT v FROM {ks}.t WHERE k = 7").one().v == "v7"
        assert session.execute("SELECT release_version FROM system.local").one().release_version
    finally:
        cluster.shutdown()


def test_driver_without_tls_is_refused():
    from cassandra.cluster import NoHostAvailable

    with pytest.raises(NoHostAvailable):
        connect(int(os.environ["CQL_TLS_PORT"]), None)


def test_driver_with_client_certificate():
    cluster, session = connect(int(os.environ["CQL_MTLS_PORT"]), ssl_context(client_cert=True))
    try:
        assert session.execute("SELECT cluster_name FROM system.local").one().cluster_name == "Test Cluster"
    finally:
        cluster.shutdown()


def test_driver_without_client_certificate_is_refused():
    from cassandra.cluster import NoHostAvailable

    with pytest.raises(NoHostAvailable):
        connect(int(os.environ["CQL_MTLS_PORT"]), ssl_context())


def cqlsh(port, command, extra_env=None, cqlshrc=None):
    exe = os.path.join(os.path.dirname(sys.executable), "cqlsh")
    args = [exe, HOST, str(port), "--ssl", "-e", command]
    if cqlshrc is not None:
        args[1:1] = ["--cqlshrc", cqlshrc]
    env = {**os.environ, "CQLSH_NO_BUNDLED": "TRUE", "HOME": os.environ["CQL_TLS_DIR"]}
    env.update(extra_env or {})
    proc = subprocess.run(args, capture_output=True, text=True, timeout=120, env=env)
    return proc.returncode, proc.stdout, proc.stderr


def test_cqlsh_ssl_with_validation():
    code, out, err = cqlsh(
        int(os.environ["CQL_TLS_PORT"]),
        "SELECT release_version FROM system.local;",
        {"SSL_CERTFILE": os.environ["CQL_TLS_CA"], "SSL_VALIDATE": "true"},
    )
    assert code == 0, err
    assert "release_version" in out and "(1 rows)" in out, out


def test_cqlsh_ssl_with_client_certificate_from_cqlshrc():
    rc = os.path.join(os.environ["CQL_TLS_DIR"], "cqlshrc")
    with open(rc, "w") as f:
        f.write(
            "[ssl]\n"
            f"certfile = {os.environ['CQL_TLS_CA']}\n"
            "validate = true\n"
            f"userkey = {os.environ['CQL_TLS_CLIENT_KEY']}\n"
            f"usercert = {os.environ['CQL_TLS_CLIENT_CERT']}\n"
        )
    code, out, err = cqlsh(int(os.environ["CQL_MTLS_PORT"]), "SELECT cluster_name FROM system.local;", cqlshrc=rc)
    assert code == 0, err
    assert "Test Cluster" in out, out


def test_cqlsh_without_ssl_cannot_talk_to_a_tls_server():
    exe = os.path.join(os.path.dirname(sys.executable), "cqlsh")
    proc = subprocess.run(
        [exe, HOST, os.environ["CQL_TLS_PORT"], "--connect-timeout", "5", "-e", "SELECT * FROM system.local;"],
        capture_output=True, text=True, timeout=120,
        env={**os.environ, "CQLSH_NO_BUNDLED": "TRUE", "HOME": os.environ["CQL_TLS_DIR"]},
    )
    assert proc.returncode != 0
    assert "Connection error" in proc.stderr, proc.stderr
