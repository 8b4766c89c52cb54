"""PasswordAuthenticator through the DataStax Python driver and cqlsh: the default superuser,
a role created and logged in with, and a wrong password refused with Cassandra's message.
The Rust harness starts the server with `authenticator: PasswordAuthenticator`."""
import os
import subprocess
import sys
import uuid

import pytest
from cassandra import AuthenticationFailed
from cassandra.auth import PlainTextAuthProvider
from cassandra.cluster import Cluster, NoHostAvailable


@pytest.fixture(scope="module")
def address():
    return os.environ.get("CQL_HOST", "127.0.0.1"), int(os.environ.get("CQL_PORT", "9042"))


def connect(address, user, password, version=None):
    kwargs = {} if version is None else {"protocol_version": version}
    cluster = Cluster(contact_points=[address[0]], port=address[1],
                      auth_provider=PlainTextAuthProvider(user, password), **kwargs)
    return cluster, cluster.connect()


def cqlsh(address, user, password, command):
    exe = os.path.join(os.path.dirname(sys.executable), "cqlsh")
    proc = subprocess.run(
        [exe, address[0], str(address[1]), "-u", user, "-p", password, "-e", command],
        capture_output=True, text=True, timeout=120,
        env={**os.environ, "CQLSH_NO_BUNDLED": "TRUE", "HOME": os.environ.get("HOME", "/tmp")},
    )
    return proc.returncode, proc.stdout, proc.stderr


@pytest.mark.parametrize("version", [3, 4, 5, None])
def test_the_default_superuser_logs_in(address, version):
    cluster, session = connect(address, "cassandra", "cassandra", version)
    try:
        row = session.execute("SELECT role, is_superuser FROM system_auth.roles WHERE role = 'cassandra'").one()
        assert (row.role, row.is_superuser) == ("cassandra", True)
    finally:
        cluster.shutdown()


def test_a_new_role_logs_in_and_a_wrong_password_is_refused(address):
    name = "r_" + uuid.uuid4().hex[:8]
    cluster, admin = connect(address, "cassandra", "cassandra")
    try:
        admin.execute(f"CREATE ROLE {name} WITH PASSWORD = 'pw' AND LOGIN = true")
        roles = [row.role for row in admin.execute("LIST ROLES")]
        assert name in roles and "cassandra" in roles
    finally:
        cluster.shutdown()
    cluster, session = connect(address, name, "pw")
    try:
        assert session.execute("SELECT release_version FROM system.local").one()
    finally:
        cluster.shutdown()
    with pytest.raises(NoHostAvailable) as refused:
        connect(address, name, "wrong")
    errors = list(refused.value.errors.values())
    assert isinstance(errors[0], AuthenticationFailed)
    assert f"Provided username {name} and/or password are incorrect" in str(errors[0])


def test_cqlsh_logs_in(address):
    code, out, err = cqlsh(address, "cassandra", "cassandra", "LIST USERS;")
    assert code == 0, err
    assert "cassandra" in out and "name" in out, out
    code, out, err = cqlsh(address, "cassandra", "nope", "SELECT * FROM system.local;")
    assert code != 0
    assert "Provided username cassandra and/or password are incorrect" in out + err
