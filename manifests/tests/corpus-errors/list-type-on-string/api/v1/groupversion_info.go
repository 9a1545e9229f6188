// +groupName=e3.errors.rkb.io
package v1
