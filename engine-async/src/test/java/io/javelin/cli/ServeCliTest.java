package io.javelin.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** {@code javelin serve} is registered and takes {@code --root URI [--port P] [--host H]}; bad usage fails before binding. */
class ServeCliTest {

    @Test
    void serveNeedsARootAndRefusesBadOptions() {
        DatasetCliTest.Result missing = DatasetCliTest.run("serve");
        assertThat(missing.exit()).isEqualTo(2);
        assertThat(missing.err()).contains("--root");
        assertThat(DatasetCliTest.run("serve", "--root").exit()).isEqualTo(2);
        assertThat(DatasetCliTest.run("serve", "--root", "/tmp/x", "--portt", "1").exit()).isEqualTo(2);
        assertThat(DatasetCliTest.run("serve", "--root", "/tmp/x", "--port", "70000").exit()).isNotZero();
    }
}
