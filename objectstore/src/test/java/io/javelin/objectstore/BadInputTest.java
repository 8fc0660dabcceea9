package io.javelin.objectstore;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;

/** Malformed URIs, unknown options, missing credentials: typed errors with actionable messages. */
class BadInputTest {

    private static final Map<String, String> NO_ENV = Map.of();

    @Test
    void malformedUris() {
        assertThatThrownBy(() -> StoreUri.parse("s3://")).isInstanceOf(InvalidStoreUriException.class);
        assertThatThrownBy(() -> StoreUri.parse("s3:///path")).isInstanceOf(InvalidStoreUriException.class)
                .hasMessageContaining("no bucket");
        assertThatThrownBy(() -> StoreUri.parse("s3://Bad_Bucket/x")).isInstanceOf(InvalidStoreUriException.class)
                .hasMessageContaining("not a valid bucket name");
        assertThatThrownBy(() -> StoreUri.parse("ftp://host/x")).isInstanceOf(InvalidStoreUriException.class)
                .hasMessageContaining("unsupported scheme 'ftp'");
        assertThatThrownBy(() -> StoreUri.parse("s3://bucket/a b")).isInstanceOf(InvalidStoreUriException.class);
        assertThatThrownBy(() -> StoreUri.parse("s3://bucket/a/../../etc")).isInstanceOf(InvalidStoreUriException.class)
                .hasMessageContaining("escape");
        assertThatThrownBy(() -> StoreUri.parse("file://otherhost/x")).isInstanceOf(InvalidStoreUriException.class);
        assertThatThrownBy(() -> StoreUri.parse("abfss://nocontainer.dfs.core.windows.net/x"))
                .isInstanceOf(InvalidStoreUriException.class);
        assertThatThrownBy(() -> StoreUri.parse("")).isInstanceOf(InvalidStoreUriException.class);
    }

    @Test
    void wellFormedUris() {
        assertThat(StoreUri.parse("s3://bucket/a/b/")).isEqualTo(new StoreUri("s3", "bucket", null, "a/b", "s3://bucket/a/b/"));
        assertThat(StoreUri.parse("gs://bkt/p").scheme()).isEqualTo("gs");
        StoreUri abfs = StoreUri.parse("abfss://data@acct.dfs.core.windows.net/t/ds.lance");
        assertThat(abfs.scheme()).isEqualTo("az");
        assertThat(abfs.bucket()).isEqualTo("data");
        assertThat(abfs.account()).isEqualTo("acct");
        assertThat(abfs.rootPrefix()).isEqualTo("t/ds.lance");
        assertThat(StoreUri.parse("/tmp/x/../y").bucket()).isEqualTo("/tmp/y");
        assertThat(StoreUri.parse("file:///tmp/z").bucket()).isEqualTo("/tmp/z");
        assertThat(StoreUri.parse("memory://ns/p").bucket()).isEqualTo("ns");
    }

    @Test
    void unknownOptionsAreErrorsNotIgnored() {
        assertThatThrownBy(() -> ObjectStores.open("memory://x", Map.of("aws_regoin", "us-east-1"), NO_ENV))
                .isInstanceOf(UnknownOptionException.class).hasMessageContaining("aws_regoin");
        // An S3 option on an Azure store is unknown there.
        assertThatThrownBy(() -> ObjectStores.open("az://cnt", Map.of("aws_region", "us-east-1"), NO_ENV))
                .isInstanceOf(UnknownOptionException.class).hasMessageContaining("'az'");
        // Known to Lance but not implemented here: refused rather than silently ignored.
        assertThatThrownBy(() -> ObjectStores.open("s3://bkt", Map.of("aws_server_side_encryption", "AES256",
                "aws_access_key_id", "k", "aws_secret_access_key", "s"), NO_ENV))
                .isInstanceOf(InvalidOptionException.class).hasMessageContaining("does not implement");
    }

    @Test
    void badOptionValues() {
        assertThatThrownBy(() -> ObjectStores.open("memory://x", Map.of("timeout", "soon"), NO_ENV))
                .isInstanceOf(InvalidOptionException.class).hasMessageContaining("duration");
        assertThatThrownBy(() -> ObjectStores.open("s3://bkt", Map.of("allow_http", "maybe"), NO_ENV))
                .isInstanceOf(InvalidOptionException.class);
        assertThatThrownBy(() -> ObjectStores.open("s3://bkt", Map.of("aws_endpoint", "http://127.0.0.1:9",
                "aws_access_key_id", "k", "aws_secret_access_key", "s"), NO_ENV))
                .isInstanceOf(InvalidOptionException.class).hasMessageContaining("allow_http");
        assertThatThrownBy(() -> ObjectStores.open("s3://bkt", Map.of("lance_aimd_decrease_factor", "2",
                "aws_access_key_id", "k", "aws_secret_access_key", "s"), NO_ENV))
                .isInstanceOf(InvalidOptionException.class).hasMessageContaining("decrease factor");
    }

    @Test
    void optionsAreCaseInsensitiveAliasedAndEnvFilled() {
        StorageOptions o = StorageOptions.resolve("s3", Map.of("REGION", "eu-west-1"),
                Map.of("AWS_ACCESS_KEY_ID", "from-env", "AWS_REGION", "ignored"));
        assertThat(o.get("aws_region")).isEqualTo("eu-west-1");
        assertThat(o.get("aws_access_key_id")).isEqualTo("from-env");
        assertThat(o.toString()).doesNotContain("from-env");
    }

    @Test
    void missingCredentials() {
        assertThatThrownBy(() -> ObjectStores.open("s3://bucket", Map.of(), NO_ENV))
                .isInstanceOf(MissingCredentialsException.class).hasMessageContaining("aws_access_key_id");
        assertThatThrownBy(() -> ObjectStores.open("s3://bucket", Map.of("aws_access_key_id", "k"), NO_ENV))
                .isInstanceOf(MissingCredentialsException.class).hasMessageContaining("aws_secret_access_key");
        assertThatThrownBy(() -> ObjectStores.open("az://container", Map.of(), NO_ENV))
                .isInstanceOf(MissingCredentialsException.class).hasMessageContaining("azure_storage_account_name");
        assertThatThrownBy(() -> ObjectStores.open("az://container", Map.of("azure_storage_account_name", "acct"), NO_ENV))
                .isInstanceOf(MissingCredentialsException.class).hasMessageContaining("azure_storage_account_key");
        assertThatThrownBy(() -> ObjectStores.open("gs://bucket", Map.of(), NO_ENV))
                .isInstanceOf(MissingCredentialsException.class).hasMessageContaining("google_service_account");
        assertThatThrownBy(() -> ObjectStores.open("gs://bucket", Map.of("google_service_account", "/no/such.json"), NO_ENV))
                .isInstanceOf(InvalidOptionException.class).hasMessageContaining("does not exist");
    }

    @Test
    void credentialsFromTheEnvironmentAreUsed() {
        try (ObjectStore s = ObjectStores.open("s3://bucket", Map.of(),
                Map.of("AWS_ACCESS_KEY_ID", "k", "AWS_SECRET_ACCESS_KEY", "s", "AWS_REGION", "us-east-1"))) {
            assertThat(s.uri()).isEqualTo("s3://bucket");
        }
    }

    @Test
    void supportedSchemesListTheStores() {
        assertThat(ObjectStores.supportedSchemes()).contains("file", "memory", "s3", "az", "gs");
    }
}
