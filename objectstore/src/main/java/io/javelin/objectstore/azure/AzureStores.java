package io.javelin.objectstore.azure;

import com.azure.storage.blob.BlobContainerAsyncClient;
import com.azure.storage.blob.BlobServiceClientBuilder;
import com.azure.storage.common.StorageSharedKeyCredential;
import com.azure.storage.common.policy.RequestRetryOptions;
import com.azure.storage.common.policy.RetryPolicyType;
import io.javelin.objectstore.InvalidOptionException;
import io.javelin.objectstore.MissingCredentialsException;
import io.javelin.objectstore.ObjectStore;
import io.javelin.objectstore.ObjectStores;
import io.javelin.objectstore.ResilientObjectStore;
import io.javelin.objectstore.StorageOptions;
import io.javelin.objectstore.StoreUri;
import io.javelin.objectstore.internal.UploadConfig;
import io.javelin.objectstore.metrics.StoreCounters;
import io.javelin.objectstore.throttle.RequestPolicy;
import io.javelin.objectstore.throttle.RetryConfig;
import java.util.Map;

/** Opens Azure Blob stores from Lance-style options. */
public final class AzureStores {

    /** The emulator's well-known development account (public, documented by Microsoft). */
    static final String DEV_ACCOUNT = "devstoreaccount1";
    static final String DEV_KEY =
            "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==";

    private AzureStores() {
    }

    /**
     * The SDK's XML reader and writer look up StAX factories (reading jar files) in their static
     * initialisers. Left lazy, that happens on a Netty event loop the first time a block list is
     * committed or a listing parsed, which is a blocking call there. Opening a store is allowed to
     * block, so initialise them here.
     */
    private static void warmUpXml() {
        for (String c : new String[] {"com.azure.xml.XmlWriter", "com.azure.xml.XmlReader"}) {
            try {
                Class.forName(c, true, AzureStores.class.getClassLoader());
            } catch (ClassNotFoundException e) {
                // not on this SDK version: nothing to warm up
            }
        }
        javax.xml.stream.XMLOutputFactory.newInstance();
        javax.xml.stream.XMLInputFactory.newInstance();
    }

    public static ObjectStore open(StoreUri u, StorageOptions o, Map<String, String> env, RetryConfig retry) {
        warmUpXml();
        boolean emulator = o.getBoolean("azure_storage_use_emulator", false);
        String account = o.get("azure_storage_account_name");
        if (account == null) {
            account = u.account() != null ? u.account() : (emulator ? DEV_ACCOUNT : null);
        }
        if (account == null) {
            throw new MissingCredentialsException(u.original(),
                    "no storage account: set azure_storage_account_name (or AZURE_STORAGE_ACCOUNT_NAME), "
                            + "or use abfss://container@account.dfs.core.windows.net/...");
        }
        String endpoint = o.get("azure_endpoint");
        if (endpoint == null) {
            endpoint = emulator ? env.getOrDefault("AZURITE_BLOB_STORAGE_URL", "http://127.0.0.1:10000") + "/" + account
                    : "https://" + account + ".blob.core.windows.net";
        }
        if (endpoint.startsWith("http://") && !emulator && !o.getBoolean("allow_http", false)) {
            throw new InvalidOptionException("azure_endpoint", endpoint, "plain HTTP needs allow_http=true");
        }
        String key = o.get("azure_storage_account_key");
        String sas = o.get("azure_storage_sas_key");
        if (key == null && sas == null && emulator && account.equals(DEV_ACCOUNT)) {
            key = DEV_KEY;
        }
        BlobServiceClientBuilder b = new BlobServiceClientBuilder().endpoint(endpoint)
                // One try: RequestPolicy retries and throttles.
                .retryOptions(new RequestRetryOptions(RetryPolicyType.FIXED, 1, (Integer) null, null, null, null));
        if (key != null) {
            b.credential(new StorageSharedKeyCredential(account, key));
        } else if (sas != null) {
            b.sasToken(sas);
        } else {
            throw new MissingCredentialsException(u.original(),
                    "set azure_storage_account_key (or AZURE_STORAGE_ACCOUNT_KEY) or azure_storage_sas_key, "
                            + "or azure_storage_use_emulator=true for Azurite");
        }
        String container = o.has("azure_container_name") ? o.get("azure_container_name") : u.bucket();
        BlobContainerAsyncClient client = b.buildAsyncClient().getBlobContainerAsyncClient(container);
        StoreCounters counters = new StoreCounters("az://" + container);
        RequestPolicy policy = ObjectStores.policy("az$" + container + "@" + account + "$" + endpoint, o, retry, counters);
        String uri = "az://" + container + (u.rootPrefix().isEmpty() ? "" : "/" + u.rootPrefix());
        AzureObjectStore raw = new AzureObjectStore(client, uri, u.rootPrefix(), counters, policy, UploadConfig.fromEnv(env));
        return new ResilientObjectStore(raw, policy);
    }
}
