#include <napi.h>
Napi::Object Init(Napi::Env env, Napi::Object e){return e;}
NODE_API_MODULE(p, Init)
