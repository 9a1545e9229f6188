// +groupName=e10.errors.rkb.io
package v1
