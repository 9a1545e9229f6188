// Invalid +genclient combinations: each is a compile error pointing at its marker line.
use rkb_runtime::Kind;
use rkb_runtime::k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

/// +genclient
/// +genclient:noVerbs
/// +genclient:readonly
/// +kubebuilder:object:root=true
#[derive(Kind)]
pub struct NoVerbsButReadonly {
    pub metadata: ObjectMeta,
}

/// +genclient
/// +genclient:onlyVerbs=get,frobnicate
/// +kubebuilder:object:root=true
#[derive(Kind)]
pub struct UnknownVerb {
    pub metadata: ObjectMeta,
}

/// +genclient
/// +genclient:onlyVerbs=get,list
/// +genclient:skipVerbs=list
/// +kubebuilder:object:root=true
#[derive(Kind)]
pub struct SkipAndOnly {
    pub metadata: ObjectMeta,
}

/// +genclient
/// +genclient:noStatus
/// +genclient:onlyVerbs=get,updateStatus
/// +kubebuilder:object:root=true
#[derive(Kind)]
pub struct NoStatusWithStatusVerb {
    pub metadata: ObjectMeta,
}

/// +genclient:nonNamespaced
/// +kubebuilder:object:root=true
#[derive(Kind)]
pub struct TagWithoutGenclient {
    pub metadata: ObjectMeta,
}

/// +genclient
/// +genclient:nostatus
/// +kubebuilder:object:root=true
#[derive(Kind)]
pub struct Typo {
    pub metadata: ObjectMeta,
}

/// +genclient=true
/// +kubebuilder:object:root=true
#[derive(Kind)]
pub struct OldFormat {
    pub metadata: ObjectMeta,
}

/// +genclient
/// +genclient:method=GetScale,verb=get,subresource=scale,result=k8s.io/api/autoscaling/v1.Scale
/// +kubebuilder:object:root=true
#[derive(Kind)]
pub struct GoTypePath {
    pub metadata: ObjectMeta,
}

/// +genclient
/// +genclient:method=Get,verb=get
/// +kubebuilder:object:root=true
#[derive(Kind)]
pub struct MethodNameTaken {
    pub metadata: ObjectMeta,
}

/// +genclient
/// +genclient:method=ListScales,verb=list,subresource=scale
/// +genclient:method=Drop,verb=delete,result=k8s_openapi::api::autoscaling::v1::Scale
/// +genclient:method=Fetch,verb=get,input=k8s_openapi::api::autoscaling::v1::Scale
/// +kubebuilder:object:root=true
#[derive(Kind)]
pub struct MethodShapes {
    pub metadata: ObjectMeta,
}

fn main() {}
