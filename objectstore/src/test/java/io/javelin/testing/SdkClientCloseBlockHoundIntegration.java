package io.javelin.testing;

import reactor.blockhound.BlockHound;
import reactor.blockhound.integration.BlockHoundIntegration;

/**
 * Lets the AWS SDK close its Netty channel pools. {@code NettyNioAsyncHttpClient.close()} hands the pool
 * close to Netty's {@code GlobalEventExecutor}, whose {@code SimpleChannelPool.close} waits for each
 * channel to close; BlockHound (which counts Netty threads as non-blocking) kills that task and the
 * closing thread then waits out the SDK's close timeout — seconds per S3 client in every interop test
 * that closes one. The wait is the SDK's own shutdown, never on a Reactor pipeline of ours.
 */
public final class SdkClientCloseBlockHoundIntegration implements BlockHoundIntegration {

    @Override
    public void applyTo(BlockHound.Builder builder) {
        builder.allowBlockingCallsInside("io.netty.channel.pool.SimpleChannelPool", "close");
    }
}
