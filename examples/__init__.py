"""pyptx example kernels: common/ holds each kernel once; ampere/, hopper/ and
blackwell/ specialise them for sm_80, sm_90a and sm_100a."""
